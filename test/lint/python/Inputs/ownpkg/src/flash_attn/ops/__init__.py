from .helpers import pick_block
