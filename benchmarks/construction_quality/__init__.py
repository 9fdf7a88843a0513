"""Construction quality with known truth: generated conversations whose values are stated,
changed, negated and corrected in varied words, asked and read back through ``Memory``."""
