"""The grid of cells and everything that changes it: pyte's ``Screen``
extended by concern (``screen`` assembles the parts: cells, drawing,
erasing, lines, margins, scrolling, tabs, modes, the palette, resizing),
the state they share declared in one place (``state``), SGR applied to
the cursor's attributes (``sgr``) and rows kept as coloured text
(``styled``).
"""
