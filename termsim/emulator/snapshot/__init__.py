"""What tests look at: immutable screens (``snapshot``), their rows and
cell values (``rows``, ``values``), the regions predicates read
(``region``) and what a text or regex wait matched (``matches``).
"""
