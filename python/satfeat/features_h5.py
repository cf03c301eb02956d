"""Features files in the layout of hloc's features.h5, so reconstruction pipelines that read hloc
features read ours: one HDF5 group per image name (the name may contain '/', which nests groups),
holding

    keypoints    float32 (N, 2)  x, y in pixels, pixel centres at integer coordinates (hloc's
                                 convention; COLMAP's adds 0.5, which hloc does on import)
    scores       float32 (N,)    the detector response (normalised Hessian determinant)
    descriptors  float32 (D, N)  one column per keypoint, D = 64 or 128 (hloc stores D x N)
    image_size   int32 (2,)      width, height

and, beside them (hloc ignores datasets it does not know),

    sizes        float32 (N,)    the keypoint size: the filter side in pixels (OpenCV's SURF size)
    angles       float32 (N,)    the orientation in degrees in [0, 360), clockwise from the x axis
                                 in the image (y down): OpenCV's KeyPoint.angle, as the Python
                                 keypoint records hold it
    laplacians   int8 (N,)       the Laplacian sign: -1 bright blob, +1 dark blob

Keypoints are in the detector's order: response descending.

Provenance (attributes, which hloc ignores): the file's root and every image group carry
satfeat_version (satfeat.version()), satfeat_params (every detector parameter, defaults
included, as JSON), satfeat_descriptor (surf64 / surf128), satfeat_angles ("degrees", the unit
of `angles`; groups without it hold radians, from versions before the Python surface took
degrees) and satfeat_created (ISO 8601 UTC);
the batch tool adds, at the root only, satfeat_command (its arguments, JSON) and satfeat_root
(the folder the image names are relative to).
"""
import datetime
import json

import numpy as np

LAYOUT = ("keypoints", "scores", "descriptors", "image_size")
EXTRAS = ("sizes", "angles", "laplacians")
ANGLE_UNIT = "degrees"  # the satfeat_angles attribute: the unit of `angles`


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


def detector_params(params):
    """Every detector parameter of a run: the library's defaults updated with `params`."""
    import satfeat

    full = dict(satfeat.detector_defaults())
    full.update(params or {})
    return full


def provenance(params, created=None):
    """The attributes that say how features were made: library version, all detector
    parameters, descriptor kind, creation time (now unless given)."""
    import satfeat

    full = detector_params(params)
    when = created or datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    return {"satfeat_version": satfeat.version(),
            "satfeat_params": json.dumps(full, sort_keys=True),
            "satfeat_descriptor": str(full.get("descriptor", "")),
            "satfeat_angles": ANGLE_UNIT,
            "satfeat_created": when}


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


def radian_angle_images(h5file, names):
    """The images among `names` whose groups do not say their angles are in degrees (written
    before the unit was recorded: radians)."""
    return [n for n in names if h5file[n].attrs.get("satfeat_angles") != ANGLE_UNIT]


def write_image(h5file, name, datasets, attrs=None):
    """Writes one image's group (with `attrs`, e.g. provenance()); an existing group of that
    name is replaced whole, so a group is either complete or absent. A group that holds other
    groups (other images' names nest under it) is never deleted: ValueError."""
    import h5py

    if name in h5file:
        old = h5file[name]
        if isinstance(old, h5py.Group) and any(isinstance(old.get(k), h5py.Group) for k in old):
            raise ValueError(f"{name}: the group holds other images' groups; not replaced")
        del h5file[name]
    group = h5file.create_group(name)
    for key, value in (attrs or {}).items():  # first: a group with every dataset has them too
        group.attrs[key] = value
    for key, value in datasets.items():
        group.create_dataset(key, data=value)


def read_image(h5file, name):
    """The datasets of one image as NumPy arrays."""
    group = h5file[name]
    return {key: group[key][()] for key in group}
