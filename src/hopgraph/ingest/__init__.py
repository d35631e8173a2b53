"""Turning files into documents and documents into chunks."""
