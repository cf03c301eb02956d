"""pip's entry to the satfeat Python package: `pip install .` from the repository root.

The extension satfeat._satfeat and the static library it links are built by the project's own
CMake (the same targets `cmake --build` makes), so the installed package equals the one
`cmake --install` puts in PREFIX/lib/python3.X/dist-packages: python/satfeat/*.py and the
extension. The CUDA backend is compiled in when CMake finds nvcc (SATFEAT_WITH_CUDA=AUTO),
else the library is CPU-only. Offline, with Debian's setuptools and no package index:

    pip install --no-build-isolation --no-deps .

Environment:
    SATFEAT_CMAKE_ARGS       extra CMake options for the fresh tree, e.g. "-DSATFEAT_WITH_CUDA=OFF"
    SATFEAT_CMAKE_BUILD_DIR  an already configured CMake tree of this checkout whose extension
                             target is built and packaged instead (the ctest python_pip_install)
    SATFEAT_BUILD_JOBS       parallel build jobs (default: the online cores)
(docs/PYTHON.md, "Installing with pip").
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def header_version():
    """The version of include/satfeat/core.h's SATFEAT_VERSION_* (CMake reads the same lines)."""
    with open(os.path.join(ROOT, "include", "satfeat", "core.h"), encoding="utf-8") as f:
        text = f.read()
    parts = [re.search(r"#define SATFEAT_VERSION_%s (\d+)" % k, text).group(1)
             for k in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


class CMakeExtension(Extension):
    """The extension CMake's target satfeat_python builds (no sources of setuptools' own)."""

    def __init__(self, name, target):
        super().__init__(name, sources=[])
        self.target = target


class CMakeBuild(build_ext):
    """Configures (or reuses) a CMake tree, builds the extension target, copies the module."""

    def run_cmd(self, cmd):
        print("setup.py: " + " ".join(shlex.quote(c) for c in cmd), flush=True)
        subprocess.check_call(cmd, cwd=ROOT)

    def build_extension(self, ext):
        jobs = os.environ.get("SATFEAT_BUILD_JOBS") or str(os.cpu_count() or 2)
        tree = os.environ.get("SATFEAT_CMAKE_BUILD_DIR")
        if not tree:
            tree = os.path.join(os.path.abspath(self.build_temp), "cmake")
            cuda = "found" if shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc") \
                else "not found"
            print("setup.py: building libsatfeat and the extension with CMake in %s (CUDA %s);"
                  " this takes minutes" % (tree, cuda), flush=True)
            self.run_cmd(["cmake", "-S", ROOT, "-B", tree, "-DCMAKE_BUILD_TYPE=Release",
                          "-DSATFEAT_BUILD_TESTS=OFF", "-DSATFEAT_BUILD_CLI=OFF",
                          "-DSATFEAT_WITH_PYTHON=ON", "-DPython3_EXECUTABLE=" + sys.executable]
                         + shlex.split(os.environ.get("SATFEAT_CMAKE_ARGS", "")))
        self.run_cmd(["cmake", "--build", tree, "--target", ext.target, "-j", jobs])
        module = os.path.join(tree, "python", "satfeat",
                              "_satfeat" + sysconfig.get_config_var("EXT_SUFFIX"))
        if not os.path.isfile(module):
            raise RuntimeError("CMake did not build %s (is %s configured for this Python, %s?)"
                               % (module, tree, sys.executable))
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(module, dest)


# setuptools' own build files: build-pip/ of the checkout, or inside a reused CMake tree
BUILD_BASE = os.path.join(os.environ.get("SATFEAT_CMAKE_BUILD_DIR") or ROOT, "build-pip")
os.makedirs(BUILD_BASE, exist_ok=True)
setup(
    name="satfeat",
    version=header_version(),
    description="Summed area tables, SURF-style keypoints, descriptors, matching and tracking "
                "on CPUs and CUDA GPUs",
    python_requires=">=3.8",
    install_requires=["numpy"],
    package_dir={"": "python"},
    packages=["satfeat"],
    package_data={"satfeat": ["__init__.pyi", "py.typed"]},  # the type stubs (PEP 561)
    ext_modules=[CMakeExtension("satfeat._satfeat", "satfeat_python")],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
    zip_safe=False,
)
