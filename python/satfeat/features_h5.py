"""Features files in the layout of hloc's features.h5, so reconstruction pipelines that read hloc
features read ours: one HDF5 group per image name (the name may contain '/', which nests groups),
holding

    keypoints    float32 (N, 2)  x, y in pixels, pixel centres at integer coordinates (hloc's
                                 convention; COLMAP's adds 0.5, which hloc does on import)
    scores       float32 (N,)    the detector response (normalised Hessian determinant)
    descriptors  float32 (D, N)  one column per keypoint, D = 64 or 128 (hloc stores D x N)
    image_size   int32 (2,)      width, height

and, beside them (hloc ignores datasets it does not know), sizes, angles and laplacians (N,).
Keypoints are in the detector's order: response descending.
"""
import numpy as np

LAYOUT = ("keypoints", "scores", "descriptors", "image_size")
EXTRAS = ("sizes", "angles", "laplacians")


def features_of(keypoints, descriptors, width, height):
    """The datasets of one image from Detector.detect(..., descriptors=True) results."""
    return {
        "keypoints": np.stack([keypoints["x"], keypoints["y"]], axis=1).astype(np.float32),
        "scores": keypoints["response"].astype(np.float32),
        "descriptors": np.ascontiguousarray(descriptors.T, dtype=np.float32),
        "image_size": np.array([width, height], dtype=np.int32),
        "sizes": keypoints["size"].astype(np.float32),
        "angles": keypoints["angle"].astype(np.float32),
        "laplacians": keypoints["laplacian"].astype(np.int8),
    }


def names_in(h5file):
    """Every image name stored whole in an open file (groups holding every dataset; a group left
    incomplete by an interrupted writer does not count, and is replaced when written again)."""
    import h5py

    names = []

    def visit(name, obj):
        if isinstance(obj, h5py.Group) and all(k in obj for k in LAYOUT + EXTRAS):
            names.append(name)

    h5file.visititems(visit)
    return names


def write_image(h5file, name, datasets):
    """Writes one image's group; an existing group of that name is replaced whole, so a group is
    either complete or absent."""
    if name in h5file:
        del h5file[name]
    group = h5file.create_group(name)
    for key, value in datasets.items():
        group.create_dataset(key, data=value)


def read_image(h5file, name):
    """The datasets of one image as NumPy arrays."""
    group = h5file[name]
    return {key: group[key][()] for key in group}
