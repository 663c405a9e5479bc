"""Views, a module per screen family: parse the request, call a selector or service, render.

home (campaign list, new campaign), reference (the rules page), setup (campaign options,
PJ, catalogue, sessions), board (the DJ's table), live (the change stream).
"""
