"""`{% compact %}...{% endcompact %}`: a pushed fragment written formatted, sent as if it
were written on one line.

The fan-out renders a fragment once per change and sends it to every open page, so its
bytes count; its source should still read as a template. Inside the block, a line break
of the template's own text and the indentation after it are not output, so a line breaks
only where no space is wanted (between tags, never between words). The work is done once,
when the template is compiled; what is rendered into it (names, notes) is left as it is.
"""

import re

from django import template
from django.template.base import TextNode

register = template.Library()

LINE_BREAK = re.compile(r"\n[ \t]*")


class CompactNode(template.Node):
    child_nodelists = ("nodelist",)

    def __init__(self, nodelist):
        self.nodelist = nodelist

    def render(self, context):
        return self.nodelist.render(context)


@register.tag
def compact(parser, token):
    nodelist = parser.parse(("endcompact",))
    parser.delete_first_token()
    for node in nodelist.get_nodes_by_type(TextNode):
        node.s = LINE_BREAK.sub("", node.s)
    return CompactNode(nodelist)
