"""The launch configuration, `kernel[grid, block, stream, shared_bytes]`, for every kind
of kernel: Python kernels (_kernel), raw and snippet kernels (_raw_kernels). The C++
side parses and validates a configuration (parse_launch_config in
src/python/arguments.cpp); here only its validated form is kept for reuse."""


def configured_launch(cache, configure, config):
    """The launcher of `config` ([grid, block, stream, shared_bytes]) from `cache`, else
    configure(config as a tuple), kept: launch loops repeat one configuration, so its
    validated form is reused (at most 64 kept per kernel). A kept entry serves only a
    configuration of the same item types: 1.0 == 1 as dict keys, but k[1.0, 32] is an
    error where k[1, 32] is not."""
    try:
        entry = cache.get(config)
    except TypeError:  # unhashable: configure() says what is wrong with it
        entry = None
    if entry is not None and (entry[0] is config or _same_types(entry[0], config)):
        return entry[1]
    launch = configure(config if isinstance(config, tuple) else (config,))
    if len(cache) < 64:
        cache[config] = (config, launch)
    return launch


def _same_types(a, b):
    if type(a) is not type(b):
        return False
    if type(a) is tuple:
        return len(a) == len(b) and all(map(_same_types, a, b))
    return True
