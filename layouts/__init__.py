"""Each figure's layout: the Bokeh plots and Panel widgets the build draws it with, once, for
the page. What the plots show in each state is the figure module's ``draw`` (``figures/``); a
layout names the models that drawing sets (its handles) and wires them with
``layoutkit.wiring``. ``layoutkit.document.view_of(figure_id)`` builds one.
"""
