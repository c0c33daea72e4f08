"""The composition root: runs the dashboard (`manage.py serve`, `manage.py bridge`) and
wires the apps together, handing each the renderers and callbacks of the others."""
