"""What a program says outside the cells (the bell, titles, the
clipboard, notifications, shell marks, images): the values (``signals``)
and the bounded log a wait reads them from (``log``).
"""
