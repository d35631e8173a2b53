"""Settings precedence: defaults ← hopgraph.toml ← HOPGRAPH_* environment ← explicit overrides."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from hopgraph.config import Settings, load_settings
from hopgraph.errors import InputError
from hopgraph.ingest.chunking import chunk_document
from hopgraph.records.documents import Document


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No HOPGRAPH_* variable and no hopgraph.toml from the developer's machine leaks into a test."""
    for field in fields(Settings):
        monkeypatch.delenv(f"HOPGRAPH_{field.name.upper()}", raising=False)
    monkeypatch.delenv("HOPGRAPH_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)


def write_toml(folder: Path, text: str, name: str = "hopgraph.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_without_file_or_environment_the_dataclass_defaults_apply() -> None:
    assert load_settings() == Settings()


def test_default_chunking_is_a_valid_window_configuration() -> None:
    settings = Settings()
    chunks = chunk_document(Document("t", "word " * 2000, "s"), "t", settings.chunk_tokens, settings.chunk_overlap)
    assert len(chunks) > 1


def test_toml_file_given_by_path_sets_values(tmp_path: Path) -> None:
    folder = tmp_path / "conf"
    folder.mkdir()
    path = write_toml(folder, 'top = 9\nembedder = "openai"\nmax_name_doc_share = 0.05\n', "custom.toml")
    settings = load_settings(config_path=str(path))
    assert (settings.top, settings.embedder, settings.max_name_doc_share) == (9, "openai", 0.05)
    assert settings.seeds == Settings().seeds  # keys not in the file keep their defaults


def test_hopgraph_toml_in_the_working_directory_is_read_by_default(tmp_path: Path) -> None:
    write_toml(tmp_path, "seeds = 1\n")
    assert load_settings().seeds == 1


def test_hopgraph_config_environment_variable_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_toml(tmp_path, "rrf_k = 45\n", "other.toml")
    monkeypatch.setenv("HOPGRAPH_CONFIG", str(path))
    assert load_settings().rrf_k == 45


def test_environment_overrides_toml_and_is_converted_to_the_field_type(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_toml(tmp_path, "top = 9\n")
    monkeypatch.setenv("HOPGRAPH_TOP", "7")
    monkeypatch.setenv("HOPGRAPH_MAX_NAME_DOC_SHARE", "0.25")
    settings = load_settings(config_path=str(path))
    assert settings.top == 7 and isinstance(settings.top, int)
    assert settings.max_name_doc_share == 0.25 and isinstance(settings.max_name_doc_share, float)


def test_explicit_override_beats_environment_and_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_toml(tmp_path, "top = 9\n")
    monkeypatch.setenv("HOPGRAPH_TOP", "7")
    assert load_settings(config_path=str(path), top=3).top == 3


def test_override_of_none_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOPGRAPH_TOP", "7")
    assert load_settings(top=None).top == 7


def test_unknown_key_in_toml_is_an_input_error_naming_the_key(tmp_path: Path) -> None:
    path = write_toml(tmp_path, "top = 4\ntopp = 5\n")
    with pytest.raises(InputError, match="topp"):
        load_settings(config_path=str(path))


def test_unknown_explicit_override_is_an_input_error_naming_the_key() -> None:
    with pytest.raises(InputError, match="chunk_size"):
        load_settings(chunk_size=100)


def test_environment_value_of_the_wrong_type_is_an_input_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOPGRAPH_TOP", "five")
    with pytest.raises(InputError) as caught:
        load_settings()
    assert "top" in str(caught.value) and "five" in str(caught.value)


def test_float_environment_value_that_is_not_a_number_is_an_input_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOPGRAPH_MAX_NAME_DOC_SHARE", "lots")
    with pytest.raises(InputError, match="max_name_doc_share"):
        load_settings()


def test_invalid_toml_is_an_input_error_naming_the_file(tmp_path: Path) -> None:
    path = write_toml(tmp_path, "top = = 3\n")
    with pytest.raises(InputError) as caught:
        load_settings(config_path=str(path))
    assert str(path) in str(caught.value)


def test_toml_value_of_the_wrong_type_is_an_input_error(tmp_path: Path) -> None:
    path = write_toml(tmp_path, 'top = "five"\n')
    with pytest.raises(InputError, match="top"):
        load_settings(config_path=str(path))
