@simt.func
def _shifted(v):
    return v + OFFSET
