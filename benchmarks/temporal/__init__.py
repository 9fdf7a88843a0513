"""Append-only vs overwrite memory on generated conversations whose attributes change."""
