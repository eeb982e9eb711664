"""What a test sends: keys (``keys``) and mouse reports (``mouse``),
encoded as the terminal would for the mode the program asked for.
"""
