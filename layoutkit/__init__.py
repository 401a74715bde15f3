"""What the figures' layouts share, at build time: Panel widgets drawn from a figure's declared
controls, and a figure's drawing set on the Bokeh models it names.
"""
