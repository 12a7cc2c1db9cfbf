"""The launch configuration, `kernel[grid, block, stream, shared_bytes]`, for every kind
of kernel: Python kernels (_kernel), raw and snippet kernels (_raw_kernels). The C++
side parses and validates a configuration (parse_launch_config in
src/python/arguments.cpp); here only its validated form is kept for reuse."""


def configured_launch(cache, configure, config):
    """The launcher of `config` ([grid, block, stream, shared_bytes]) from `cache`, else
    configure(config as a tuple), kept: launch loops repeat one configuration, so its
    validated form is reused (at most 64 kept per kernel)."""
    try:
        launch = cache.get(config)
    except TypeError:  # unhashable: configure() says what is wrong with it
        launch = None
    if launch is None:
        launch = configure(config if isinstance(config, tuple) else (config,))
        if len(cache) < 64:
            cache[config] = launch
    return launch
