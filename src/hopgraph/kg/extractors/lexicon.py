"""The words the parse extractor reads with: a general business-English verb lexicon, and role,
facility, place, event, vehicle and part nouns. Nothing here names an entity of any corpus.

A rule reads "verb + slot → relation between two slots", where a slot is the logical subject
("subj"), the direct object ("dobj") or the object of a preposition ("from", "to", "in"…);
grammar.py turns passive clauses active before the rules apply.
"""

from __future__ import annotations

from typing import NamedTuple


class Rule(NamedTuple):
    source: str  # slot whose filler is the relation's source
    target: str  # slot whose filler is its target
    relation: str
    target_types: frozenset[str] = frozenset()  # when set, the target must have one of these types
    unless_object: frozenset[str] = frozenset()  # the rule is off when the direct object has such a type


_ANY: frozenset[str] = frozenset()
_ORG = frozenset({"ORG"})
_GOODS = frozenset({"PRODUCT", "COMPONENT"})
_CUSTOMER = frozenset({"ORG", "PRODUCT", "COMPONENT"})
_PLACE = frozenset({"LOCATION"})
_CAUSE = frozenset({"EVENT", "CONCEPT"})


def _rules(verbs: str, *rules: Rule) -> dict[str, tuple[Rule, ...]]:
    return {verb: rules for verb in verbs.split()}


# A supplier: the subject supplies the direct object (a customer or named goods), the "to" object, and
# named goods it supplies "with". A seller sells goods "to" a customer; a company sold "to" a buyer
# is owned by that buyer.
# "for Y" and "for Y's cars" name the customer too, and so does the subject of a relative clause on
# the goods ("the strip from which Y stamps plates": the "consumer" slot, grammar.slots).
_TAKERS = (Rule("subj", "for", "SUPPLIES", _ORG), Rule("subj", "consumer", "SUPPLIES", _ORG))
_SUPPLY = (Rule("subj", "dobj", "SUPPLIES", _CUSTOMER), Rule("subj", "to", "SUPPLIES", _CUSTOMER),
           Rule("subj", "with", "SUPPLIES", _GOODS), *_TAKERS)
_SELL = (Rule("subj", "dobj", "SUPPLIES", _GOODS), Rule("subj", "to", "SUPPLIES", _CUSTOMER, _ORG),
         Rule("to", "dobj", "OWNS", _ORG), *_TAKERS)
# A buyer: whoever it buys "from" supplies it; buying a company is owning it.
_BUY = (Rule("from", "subj", "SUPPLIES"), Rule("subj", "dobj", "OWNS", _ORG))
# A maker of a named product or component supplies it ("made by" in the supplier convention).
_MAKE = (Rule("subj", "dobj", "SUPPLIES", _GOODS), Rule("subj", "to", "SUPPLIES", _ORG),
         Rule("subj", "for", "SUPPLIES", _ORG),  # "makes brake pads for X"
         Rule("subj", "in", "LOCATED_IN", _PLACE), Rule("subj", "at", "LOCATED_IN", _PLACE))  # "makes pads at X"
_OWN = (Rule("subj", "dobj", "OWNS", _ORG), Rule("subj", "in", "OWNS", _ORG))  # "holds a stake in X"
# "X uses Y's compounds", "X uses supplier Y": the firm whose goods are used supplies the user.
_USE = (Rule("subj", "dobj", "USES", _GOODS), Rule("dobj", "subj", "SUPPLIES", _ORG))
_PLACED = (Rule("dobj", "in", "LOCATED_IN", _PLACE), Rule("dobj", "at", "LOCATED_IN", _PLACE),
           Rule("subj", "in", "LOCATED_IN", _PLACE))
_STAYS = (Rule("subj", "in", "LOCATED_IN", _PLACE), Rule("subj", "to", "LOCATED_IN", _PLACE))
_LEAD = (Rule("subj", "dobj", "PART_OF", _ORG),)
_CAUSED = (Rule("dobj", "subj", "CAUSED_BY", _CAUSE),)

VERB_RULES: dict[str, tuple[Rule, ...]] = {
    **_rules("supply provide furnish serve", *_SUPPLY),
    **_rules("sell deliver ship send distribute export vend", *_SELL),
    **_rules("buy purchase source procure order import obtain receive get take", *_BUY),
    **_rules("come arrive", Rule("from", "subj", "SUPPLIES")),  # "our brackets come from X"
    **_rules("switch turn", Rule("to", "subj", "SUPPLIES", _ORG)),  # "Y switched to X for its castings"
    **_rules("make manufacture produce build assemble fabricate forge cast mould mold machine design "
             "develop brew", *_MAKE),
    # A maker bringing out a named product supplies it ("X launched the Y"; a campaign is no product).
    **_rules("launch unveil introduce release debut", Rule("subj", "dobj", "SUPPLIES", _GOODS)),
    **_rules("own acquire control hold", *_OWN),
    **_rules("use employ utilise utilize adopt incorporate feature", *_USE),
    **_rules("fit equip", Rule("to", "dobj", "USES", _ANY), Rule("subj", "with", "USES", _GOODS),
             Rule("subj", "dobj", "USES", _GOODS)),
    **_rules("rely depend", Rule("subj", "on", "USES", _GOODS), Rule("on", "subj", "SUPPLIES", _ORG)),
    **_rules("locate base headquarter situate site house", *_PLACED),
    **_rules("remain sit stand lie move relocate shift open", *_STAYS),
    # "operates from X" (moving from X: no); one entry, as a later key would replace the earlier
    **_rules("operate", *_STAYS, Rule("subj", "from", "LOCATED_IN", _PLACE)),
    **_rules("be", Rule("subj", "in", "LOCATED_IN", _PLACE), Rule("subj", "at", "LOCATED_IN", _PLACE)),
    **_rules("report answer", Rule("subj", "to", "REPORTS_TO", frozenset({"PERSON"}))),
    **_rules("work serve", Rule("subj", "for", "PART_OF", _ORG), Rule("subj", "at", "PART_OF", _ORG),
             Rule("subj", "with", "PART_OF", _ORG)),
    **_rules("join lead head run manage chair direct found co-found", *_LEAD),
    **_rules("cause trigger create spark", *_CAUSED),
    **_rules("lead contribute", Rule("to", "subj", "CAUSED_BY", _CAUSE)),
    **_rules("result stem follow arise", Rule("subj", "from", "CAUSED_BY", _CAUSE),
             Rule("in", "subj", "CAUSED_BY", _CAUSE)),
}
# "X is owned by Y" is read from the agent; "X is located in Y" has no agent: its subject is the
# logical direct object, so these verbs' passive subject stays the object (see parse.py).

# The types a relation's source may have (an untyped source passes where a company may stand).
SOURCE_TYPES = {"SUPPLIES": {"ORG"}, "OWNS": {"ORG", "PERSON"}, "USES": {"ORG", "PRODUCT", "COMPONENT"},
                "LOCATED_IN": {"ORG", "LOCATION", "EVENT"}, "CAUSED_BY": {"EVENT", "CONCEPT"},
                "PART_OF": {"PERSON"}, "REPORTS_TO": {"PERSON"}, "RELATED_TO": {"ORG", "PRODUCT", "COMPONENT",
                                                                                "EVENT", "CONCEPT", "LOCATION"}}

# Nouns that carry a relation: "X, a subsidiary of Y", "Its largest customer is Y", "its works in Z".
# (holder → relation, read as: possessor/"of"-object REL the noun's referent, or the reverse)
CUSTOMER_NOUNS = frozenset({"customer", "client", "buyer", "purchaser", "account"})
SUPPLIER_NOUNS = frozenset({"supplier", "vendor", "source", "seller", "maker", "manufacturer", "producer"})
SUBSIDIARY_NOUNS = frozenset({"subsidiary", "unit", "division", "arm", "affiliate"})
OWNER_NOUNS = frozenset({"owner", "parent", "shareholder", "investor"})
# "X is home to Y", "X, the base of Y": the named place holds what the noun points at.
HOME_NOUNS = frozenset({"home", "base", "seat"})
# Trade nouns that state a supply: from the owner or "from" object to the "to" object ("X's deliveries to
# Y"), or to the owner from the "from" object ("Y's purchases from X").
OUTGOING_NOUNS = frozenset({"delivery", "shipment", "supply", "sale", "export", "consignment", "dispatch"})
INCOMING_NOUNS = frozenset({"purchase", "order", "import", "procurement", "intake"})
COPULAS = frozenset({"be", "become", "remain"})
# Verbs that list names under a role noun: "its customers include X", "X counts Y among its customers".
LISTING_VERBS = frozenset({"include", "comprise", "count", "number", "list", "name", "rank"})
# Verbs whose direct object may be a site of the subject's ("operates a plant in X", "opened a mill in
# X"), or that the subject does at a site ("makes strip at plants in X").
SITE_VERBS = frozenset({"operate", "run", "have", "open", "build", "own", "set", "establish", "commission",
                        "maintain", "expand", "add", "move", "relocate", "shift", "make", "manufacture",
                        "produce", "assemble", "cast", "forge", "machine", "mould", "mold", "fabricate"})
FACILITY_NOUNS = frozenset({"plant", "factory", "works", "site", "headquarters", "office", "offices",
                            "facility", "mill", "foundry", "campus", "base", "warehouse", "depot",
                            "unit", "shop", "hq", "operations", "business"})
ROLE_WORDS = frozenset({
    "director", "directors", "chairman", "chairwoman", "chair", "chairperson", "chief", "executive", "officer",
    "ceo", "cfo", "coo", "cto", "md", "president", "vice", "head", "manager", "engineer", "founder", "secretary",
    "spokesperson", "spokesman", "spokeswoman", "employee", "partner", "treasurer", "controller", "supervisor",
    "lead", "leader", "superintendent", "boss", "owner", "managing", "general", "plant", "quality", "purchasing",
    "procurement", "operations", "sales", "finance", "technical", "commercial", "senior", "deputy", "principal",
    "analyst", "auditor", "inspector", "representative", "agent", "counsel", "member"})
# A role noun is a person's job only when its last word is one of these (a "plant" is not a job).
ROLE_HEADS = frozenset({
    "director", "chairman", "chairwoman", "chair", "chairperson", "executive", "officer", "ceo", "cfo", "coo",
    "cto", "md", "president", "head", "manager", "engineer", "founder", "secretary", "spokesperson",
    "spokesman", "spokeswoman", "employee", "treasurer", "controller", "supervisor", "leader",
    "superintendent", "boss", "analyst", "auditor", "inspector", "representative", "counsel", "member"})

# Entity typing of a name by its last common noun ("the Surat foundry fire", "the QX-12 caliper").
EVENT_NOUNS = frozenset({
    "flood", "floods", "flooding", "fire", "blaze", "explosion", "strike", "lockout", "shortage", "halt", "cut",
    "delay", "delays", "outage", "recall", "stoppage", "shutdown", "disruption", "accident", "collapse",
    "earthquake", "storm", "cyclone", "dispute", "bankruptcy", "insolvency", "merger", "acquisition", "sale",
    "launch", "closure", "protest", "breach", "leak", "spill", "crisis", "slump", "drop", "fall", "surge",
    "failure", "incident", "attack", "pandemic", "epidemic", "war", "quake", "landslide", "drought"})
VEHICLE_NOUNS = frozenset({
    "car", "cars", "suv", "suvs", "truck", "trucks", "hatchback", "sedan", "saloon", "coupe", "van", "bus",
    "buses", "tractor", "motorcycle", "scooter", "pickup", "vehicle", "vehicles", "model", "models", "lorry",
    "jeep", "crossover", "minivan", "phone", "laptop", "product", "products", "brand", "range", "platform"})
COMPONENT_NOUNS = frozenset({
    "part", "parts", "component", "components", "caliper", "calipers", "pad", "pads", "beam", "beams",
    "brake", "brakes", "housing", "housings", "bracket", "brackets", "seal", "bearing", "bearings",
    "gear", "gears", "gearbox", "engine", "engines", "axle", "axles", "shaft", "shafts", "valve", "valves",
    "pump", "pumps", "sensor", "sensors", "chip", "chips", "module", "modules", "battery", "batteries",
    "cell", "cells", "tyre", "tyres", "tire", "tires", "wheel", "wheels", "seat", "seats", "casting",
    "castings", "forging", "forgings", "drum", "drums", "disc", "discs", "rotor", "rotors", "spring",
    "springs", "knuckle", "knuckles", "piston", "pistons", "cylinder", "filter", "filters", "hose", "hoses",
    "harness", "lamp", "lamps", "mirror", "mirrors", "clutch", "clutches", "transmission", "motor", "motors",
    "inverter", "controller", "display", "board", "boards", "unit", "assembly", "kit", "lining", "linings"})
# Last words that make a capitalised name a company rather than a person or a place.
ORG_WORDS = frozenset({
    "ltd", "limited", "pvt", "private", "inc", "incorporated", "llc", "llp", "plc", "gmbh", "ag", "co", "corp",
    "corporation", "company", "group", "holdings", "holding", "industries", "industry", "systems", "motors",
    "trucks", "foundry", "foundries", "forgings", "forge", "castings", "steel", "steels", "metals",
    "mining", "plastics", "chemicals", "electronics", "electricals", "technologies",
    "technology", "tech", "automotive", "components", "engineering", "engineers", "manufacturing", "logistics",
    "enterprises", "works", "mills", "textiles", "pharma", "pharmaceuticals", "labs", "laboratories", "bank",
    "partners", "ventures", "capital", "associates", "solutions", "services", "international", "global",
    "brakes", "rubber", "tyres", "auto", "autos", "energy", "power", "paints",
    "glass", "cables", "wires", "fasteners", "bearings", "gears", "pumps", "products", "resources"})
CONCEPT_HINTS = frozenset({"certification", "certificate", "standard", "accreditation", "approval", "iso",
                           "licence", "license", "patent", "award", "regulation", "agreement"})

# Definite descriptions that stand for a company mentioned before ("the company", "the group").
ORG_DESCRIPTIONS = frozenset({"company", "firm", "group", "business", "supplier", "maker", "manufacturer",
                              "producer", "foundry", "plant", "site", "factory", "holding", "corporation",
                              "concern", "enterprise", "organisation", "organization", "seller", "buyer",
                              "purchaser", "vendor", "customer", "carmaker", "automaker", "works", "operation"})
PERSON_PRONOUNS = frozenset({"he", "she", "him", "her", "his", "hers", "himself", "herself"})
THING_PRONOUNS = frozenset({"it", "its", "itself"})
# "we", "our", "us": the writer's own company (a memo, a statement in quotes).
FIRST_PERSON = frozenset({"we", "our", "us", "ours"})

# Words that deny the fact of their clause ("does not supply", "no longer", "is unrelated to").
NEGATORS = frozenset({"not", "n't", "never", "no", "neither", "nor", "without", "cease", "stop", "end",
                      "deny", "unrelated", "different", "separate", "distinct", "independent", "none"})
# Verbs that put their clause in doubt: plans, talks, denials, reports of what did not happen.
HEDGES = frozenset({"plan", "consider", "seek", "hope", "aim", "intend", "propose", "negotiate", "discuss",
                    "explore", "may", "might", "could", "would", "deny", "refuse", "decline", "fail", "expect",
                    "ask", "want", "try", "stop", "cease", "end"})

# Modal auxiliaries that make a clause a possibility or a plan ("will" and a contract's "shall" state facts).
MODALS = frozenset({"would", "might", "could", "may"})

# Phrases the embedder compares an unmapped verb phrase with: (prototype, relation, subject is source).
PROTOTYPES: tuple[tuple[str, str, bool], ...] = (
    ("supplies", "SUPPLIES", True), ("sells to", "SUPPLIES", True), ("delivers parts to", "SUPPLIES", True),
    ("buys from", "SUPPLIES", False), ("sources from", "SUPPLIES", False),
    ("uses", "USES", True), ("is fitted with", "USES", True),
    ("is located in", "LOCATED_IN", True), ("is based in", "LOCATED_IN", True),
    ("owns", "OWNS", True), ("acquires", "OWNS", True), ("is owned by", "OWNS", False),
    ("works for", "PART_OF", True), ("is employed by", "PART_OF", True),
    ("reports to", "REPORTS_TO", True), ("is caused by", "CAUSED_BY", True), ("causes", "CAUSED_BY", False),
)

PLACE_NOUNS = frozenset({"town", "city", "state", "district", "village", "capital", "region", "country",
                         "province", "suburb", "port", "county", "hub", "metropolis", "area", "municipality"})


def describes(noun: str) -> str:
    """The entity type an apposition's head noun gives its holder ("X, a town in Y" → LOCATION)."""
    for nouns, kind in ((PLACE_NOUNS, "LOCATION"), (ORG_DESCRIPTIONS, "ORG"), (VEHICLE_NOUNS, "PRODUCT"),
                        (COMPONENT_NOUNS, "COMPONENT"), (EVENT_NOUNS, "EVENT")):
        if noun in nouns:
            return kind
    return ""
