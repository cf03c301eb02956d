"""The names (keys) of images in a features file, and the checks that keep them one to one.

An image's name is its path relative to the run's root folder, with '/' separators, as hloc
names images relative to its image folder. The root is `--root` when given, else the deepest
folder holding every input (the folder itself when one folder is given, a file's own folder when
one file is given), so `A/x.png` and `B/x.png` keep their folders in their names.

Two checks run before any work, because a clash found half-way would leave a file whose groups
do not say which image they came from:

- a name that is not valid UTF-8 (HDF5 names are UTF-8; h5py raises on the surrogate escapes
  Python uses for undecodable bytes): refused, listed with the bytes escaped (`\\xe9`);
- two inputs with one name, or a name that is also a folder of other names (`a.png` and
  `a.png/b.png`: HDF5 would nest the second group inside the first, and replacing `a.png` would
  delete `a.png/b.png`); the names already stored in the output count too.
"""
import os


def is_image_name(filename, suffixes):
    """True for the file names picked in folders: one of `suffixes` (lower case), any case."""
    return filename.lower().endswith(tuple(suffixes))


def default_root(inputs):
    """The deepest folder holding every input (absolute)."""
    dirs = [os.path.abspath(p) if os.path.isdir(p) else os.path.dirname(os.path.abspath(p))
            for p in inputs]
    return os.path.commonpath(dirs)


def list_images(inputs, suffixes, root=None):
    """(name, path) of every image under `inputs` (files, and folders searched recursively for
    names ending in one of `suffixes`), sorted by name, and the root the names are relative to.
    A file reached twice (a folder and a file inside it) is listed once. Raises ValueError for
    an input outside `root`."""
    root = os.path.abspath(root) if root is not None else default_root(inputs)
    paths = []
    for entry in inputs:
        entry = os.path.abspath(entry)
        if os.path.isdir(entry):
            for folder, _, files in os.walk(entry):
                paths.extend(os.path.join(folder, f) for f in files
                             if is_image_name(f, suffixes))
        else:
            paths.append(entry)
    items = {}
    for path in paths:
        rel = os.path.relpath(path, root)
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            raise ValueError(f"{path} is not under the root {root} (--root)")
        items.setdefault(path, rel.replace(os.sep, "/"))
    return sorted(((name, path) for path, name in items.items()), key=lambda i: i[0]), root


def printable(name):
    """A name as text that can always be printed: undecodable bytes as \\xNN."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def not_utf8(names):
    """The names whose bytes are not UTF-8 (Python holds them with surrogate escapes)."""
    bad = []
    for name in names:
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            bad.append(name)
    return bad


def clashes(items, stored=()):
    """Problems that would make two images share a group, as sorted messages: one name for two
    paths, or a name that is a folder of another name (among `items`' names and the names
    `stored` in the output already)."""
    problems = []
    by_name = {}
    for name, path in items:
        by_name.setdefault(name, []).append(path)
    for name, paths in sorted(by_name.items()):
        if len(paths) > 1:
            problems.append(f"{printable(name)}: {len(paths)} inputs have this name: "
                            + ", ".join(printable(p) for p in paths))
    new = set(by_name)
    everything = new | set(stored)

    def where(n):
        return "the inputs" if n in new else "the output"

    for name in sorted(everything):
        parts = name.split("/")
        for i in range(1, len(parts)):
            folder = "/".join(parts[:i])
            if folder in everything and (folder in new or name in new):
                problems.append(f"{printable(folder)} ({where(folder)}) is also a folder of "
                                f"{printable(name)} ({where(name)})")
    return problems
