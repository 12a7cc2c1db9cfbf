"""Shapes and strides: broadcasting (the array API's rule, NumPy's), views that broadcast
with zero strides, and the collapse of dimensions a loop can walk as one."""

from ._array import Array


def broadcast_shapes(*shapes):
    """The shape `shapes` broadcast to; ValueError naming every shape when they do not."""
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for shape in shapes:
        for axis, extent in enumerate(shape, ndim - len(shape)):
            if extent == result[axis] or extent == 1:
                continue
            if result[axis] == 1:
                result[axis] = extent
                continue
            raise ValueError("operands could not be broadcast together with shapes "
                             + " ".join(str(tuple(s)) for s in shapes))
    return tuple(result)


def broadcast_strides(own_shape, own_strides, shape):
    """The strides of an array of `own_shape` viewed with `shape` (which it broadcasts
    to): 0 where it repeats."""
    lead = len(shape) - len(own_shape)
    if lead < 0:
        raise ValueError(f"an array of shape {tuple(own_shape)} cannot broadcast to {shape}")
    strides = [0] * lead
    for axis, (extent, stride) in enumerate(zip(own_shape, own_strides)):
        target = shape[lead + axis]
        if extent == target:
            strides.append(stride)
        elif extent == 1:
            strides.append(0)
        else:
            raise ValueError(f"an array of shape {tuple(own_shape)} cannot broadcast to "
                             f"{tuple(shape)}")
    return tuple(strides)


def broadcast_view(array, shape):
    """`array` viewed with `shape` (which it broadcasts to): stride 0 where it repeats."""
    if array.shape == tuple(shape):
        return array
    strides = broadcast_strides(array.shape, array.strides, tuple(shape))
    return Array._wrap(array._impl.view(array._impl.offset, list(shape), list(strides)))


def collapse(shape, strides_of):
    """(shape, [strides per operand]) with the dimensions merged that every operand walks
    as one (stride of the outer = extent x stride of the inner), and extents of 1 dropped:
    a C-contiguous operation of any shape becomes one dimension."""
    keep = [axis for axis, extent in enumerate(shape) if extent != 1]
    new_shape = [shape[a] for a in keep]
    new_strides = [[s[a] for a in keep] for s in strides_of]
    axis = len(new_shape) - 1
    while axis > 0:
        inner = axis
        outer = axis - 1
        if all(s[outer] == s[inner] * new_shape[inner] for s in new_strides):
            new_shape[inner] *= new_shape[outer]
            del new_shape[outer]
            for s in new_strides:
                del s[outer]
        axis -= 1
    return new_shape, new_strides


def element_view(array, shape, strides):
    """A view of `array`'s memory (from its first element) with another shape and strides."""
    return Array._wrap(array._impl.view(array._impl.offset, list(shape), list(strides)))


def c_strides(shape, itemsize):
    """The strides (bytes) of a C-contiguous array of `shape`."""
    strides, step = [], itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))
