"""What the figure modules share, in numpy and the standard library alone: the controls a
figure declares (``controls``), what a drawing of a state is (``drawing``), and the figure
that answers a reader's changes (``figure``), the same object at build time and in the
reader's worker.
"""
