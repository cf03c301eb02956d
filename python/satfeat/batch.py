"""Keypoints and descriptors of an image collection on a Dask distributed cluster, written to one
HDF5 features file in hloc's features.h5 layout (satfeat.features_h5).

    python3 -m satfeat.batch IMAGES... -o features.h5 [--workers N | --scheduler ADDRESS]

IMAGES are image files (PNG, PGM, PPM) and folders, searched recursively; an image's name in the
file is its path relative to the folder it was found in (or its file name). Design
(docs/SCALE.md):

- Each worker process holds one satfeat.Detector per device it owns (all CUDA devices it sees,
  or one CPU detector), created by a worker plugin and handed to the worker's task threads
  through a queue, so a detector is never used by two threads at once and never rebuilt per
  image (only grown when an image is larger than it).
- A task is a chunk of image paths: the worker reads the files itself, detects and returns the
  features (never pixels) to the client, the file's only writer.
- Restartable: images already stored whole in the output are skipped. A bad image is recorded
  with its error in OUTPUT.failures.json and does not stop the run. A worker that dies has its
  tasks rerun by Dask; the client writes each image once, when its task's result first arrives.
"""
import argparse
import json
import os
import queue
import sys
import time

import satfeat
from satfeat import features_h5
from satfeat.progress import ProgressBar

IMAGE_SUFFIXES = (".png", ".pgm", ".ppm", ".pnm", ".jpg", ".jpeg")
PLUGIN_NAME = "satfeat-detectors"


def list_images(inputs):
    """(name, path) of every image under `inputs` (files and folders), sorted by name."""
    found = {}
    for entry in inputs:
        entry = os.path.abspath(entry)
        if os.path.isdir(entry):
            for root, _, files in os.walk(entry):
                for f in files:
                    if f.lower().endswith(IMAGE_SUFFIXES):
                        path = os.path.join(root, f)
                        found[os.path.relpath(path, entry).replace(os.sep, "/")] = path
        else:
            found[os.path.basename(entry)] = entry
    return sorted(found.items())


class DetectorPool:
    """One Detector per device, lent to one thread at a time. A detector is recreated larger
    when an image exceeds its size (results do not depend on the detector's maximum size)."""

    def __init__(self, backend, devices, params, threads):
        self.backend, self.params, self.threads = backend, dict(params), threads
        self.free = queue.Queue()
        for device in devices:
            self.free.put((device, None))

    def detect(self, image):
        """(keypoints, descriptors) of a uint8 image on the first free device."""
        device, det = self.free.get()
        try:
            h, w = image.shape
            if det is None or det.width < w or det.height < h:
                size = (w, h) if det is None else (max(w, det.width), max(h, det.height))
                det = None  # free the old one first (device memory)
                det = satfeat.Detector(size[0], size[1], backend=self.backend, device=device,
                                       threads=self.threads, **self.params)
            return det.detect(image, descriptors=True)
        finally:
            self.free.put((device, det))


def _devices(backend, worker_name=None, split=False):
    """The devices a worker owns: every CUDA device it sees, or with `split` (a LocalCluster of
    one worker per GPU, workers named 0, 1, ...) the one device its name picks; the CPU (-1)
    without a device."""
    n = satfeat.cuda_device_count() if backend != "cpu" else 0
    if n == 0:
        return [-1]
    if split and str(worker_name).isdigit():
        return [int(worker_name) % n]
    return list(range(n))


def _worker_plugin_class():
    from distributed import WorkerPlugin

    class SatfeatDetectors(WorkerPlugin):
        """Creates the worker's DetectorPool when the worker starts (again after a restart)."""

        def __init__(self, backend, params, threads, split_devices):
            self.backend, self.params, self.threads = backend, params, threads
            self.split_devices = split_devices
            self.pool = None

        def setup(self, worker):
            devices = _devices(self.backend, worker.name, self.split_devices)
            self.pool = DetectorPool(self.backend, devices, self.params, self.threads)

    return SatfeatDetectors


def extract_chunk(items):
    """Runs on a worker: features of (name, path) pairs as (name, 'ok', datasets) or
    (name, 'failed', message)."""
    from distributed import get_worker

    pool = get_worker().plugins[PLUGIN_NAME].pool
    out = []
    for name, path in items:
        try:
            image = satfeat.load_gray(path)
            keypoints, descriptors = pool.detect(image)
            h, w = image.shape
            out.append((name, "ok", features_h5.features_of(keypoints, descriptors, w, h)))
        except (satfeat.Error, OSError, ValueError) as e:
            out.append((name, "failed", f"{type(e).__name__}: {e}"))
    return out


def extract_serial(items, backend="cpu", params=None, threads=0):
    """The same features in this process, without Dask (the reference of the tests)."""
    pool = DetectorPool(backend, _devices(backend), params or {}, threads)
    results = {}
    for name, path in items:
        image = satfeat.load_gray(path)
        keypoints, descriptors = pool.detect(image)
        results[name] = features_h5.features_of(keypoints, descriptors, image.shape[1],
                                                image.shape[0])
    return results


def failures_path(output):
    """Where the failures of the last run on `output` are listed (JSON)."""
    return str(output) + ".failures.json"


def run(items, output, client, backend="auto", params=None, threads=1, chunk=4, progress=True,
        on_result=None, resources=None, split_devices=False):
    """Extracts the features of `items` ((name, path) pairs) on `client`'s cluster into the HDF5
    file `output` (created, or appended to: images already in it are skipped). Returns a summary
    dict: written, skipped, failed (a list of {image, error}), seconds. `on_result(done, total)`
    is called after each finished chunk (the tests use it to kill a worker mid-run).
    `resources` (e.g. {"GPU": 1}) is what each task claims of a worker's Dask resources: with
    workers started as `dask worker ADDRESS --nthreads G --resources GPU=G` on hosts of G GPUs,
    at most G chunks run at once per worker, one per detector of its pool. `split_devices`: each
    worker owns only device (name mod device count) instead of every device it sees (for a
    LocalCluster of one worker per GPU)."""
    import h5py
    from distributed import as_completed

    start = time.monotonic()
    try:
        with h5py.File(output, "a") as f:
            present = set(features_h5.names_in(f))
    except OSError as e:  # not HDF5, or left unreadable by a writer killed mid-write
        raise OSError(f"{output}: cannot open it as an HDF5 features file ({e}); it is left "
                      "as it is: move it away to start again") from e
    todo = [item for item in items if item[0] not in present]
    plugin = _worker_plugin_class()(backend, dict(params or {}), threads, split_devices)
    client.register_worker_plugin(plugin, name=PLUGIN_NAME)
    chunks = [todo[i:i + chunk] for i in range(0, len(todo), chunk)]
    futures = [client.submit(extract_chunk, c, pure=False, resources=resources) for c in chunks]
    sizes = {future.key: len(c) for future, c in zip(futures, chunks)}
    bar = ProgressBar(len(todo), label="satfeat", stream=sys.stderr)
    bar.enabled = bar.enabled and progress
    written, failures, done = 0, [], 0
    try:
        with h5py.File(output, "a") as f:
            for future in as_completed(futures):
                for name, status, payload in future.result():
                    if status == "ok":
                        if name not in present:  # a result that arrives twice is written once
                            features_h5.write_image(f, name, payload)
                            present.add(name)
                            written += 1
                    else:
                        failures.append({"image": name, "error": payload})
                f.flush()
                future.release()
                done += 1
                bar.advance(sizes[future.key])
                if on_result:
                    on_result(done, len(chunks))
    finally:
        bar.close()
        for future in futures:
            future.release()
    failures.sort(key=lambda e: e["image"])
    with open(failures_path(output), "w") as fp:
        json.dump(failures, fp, indent=1)
    return {"written": written, "skipped": len(items) - len(todo), "failed": failures,
            "seconds": time.monotonic() - start}


def _parse_param(text):
    key, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"--param wants KEY=VALUE, got '{text}'")
    for convert in (int, float):
        try:
            return key, convert(value)
        except ValueError:
            pass
    return key, value


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python3 -m satfeat.batch",
        description="Keypoints and descriptors of image files on a Dask cluster, into an HDF5 "
                    "file in hloc's features.h5 layout (restartable).")
    ap.add_argument("images", nargs="+", help="image files and folders (searched recursively)")
    ap.add_argument("-o", "--output", required=True, help="HDF5 features file (appended to)")
    ap.add_argument("--scheduler", help="address of a running Dask scheduler (default: a "
                    "LocalCluster on this machine)")
    ap.add_argument("--workers", type=int, default=0,
                    help="LocalCluster worker processes (default: one per CUDA device, each "
                    "owning its device; without a device (or --backend cpu) the CPU count)")
    ap.add_argument("--threads-per-worker", type=int, default=1,
                    help="LocalCluster task threads per worker (default 1; one per GPU it owns)")
    ap.add_argument("--backend", default="auto", choices=("auto", "cpu", "cuda"))
    ap.add_argument("--detector-threads", type=int, default=1,
                    help="CPU threads of each CPU detector (default 1: parallel over images)")
    ap.add_argument("--chunk", type=int, default=4, help="images per task (default 4)")
    ap.add_argument("--param", action="append", type=_parse_param, default=[],
                    metavar="KEY=VALUE", help="detector parameter, e.g. max_keypoints=2048 or "
                    "descriptor=surf128 (repeatable)")
    ap.add_argument("--task-resources", action="append", type=_parse_param, default=[],
                    metavar="NAME=AMOUNT", help="Dask resources each task claims, e.g. GPU=1 "
                    "for workers started with --resources GPU=N (repeatable)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    if args.chunk < 1 or args.workers < 0 or args.threads_per_worker < 1:
        ap.error("--chunk and --threads-per-worker must be at least 1, --workers at least 0")
    params = dict(args.param)
    params.setdefault("descriptor", "surf64")
    items = list_images(args.images)
    missing = [p for _, p in items if not os.path.exists(p)]
    if missing:
        ap.error(f"no such file: {missing[0]}")

    if os.path.exists(args.output):
        import h5py

        if not h5py.is_hdf5(args.output):
            print(f"python3 -m satfeat.batch: {args.output} exists and is not an HDF5 file; it "
                  "is left as it is (move it away, or name another output)", file=sys.stderr)
            return 1

    from distributed import Client, LocalCluster

    gpus = satfeat.cuda_device_count() if args.backend != "cpu" else 0
    split = not args.scheduler and gpus > 0 and args.workers in (0, gpus)
    workers = args.workers or gpus or os.cpu_count() or 1
    if args.scheduler:
        cluster, client = None, Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=args.threads_per_worker,
                               processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        summary = run(items, args.output, client, backend=args.backend, params=params,
                      threads=args.detector_threads, chunk=args.chunk,
                      progress=not args.no_progress,
                      resources=dict(args.task_resources) or None, split_devices=split)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    n = len(items)
    print(f"{args.output}: {summary['written']} written, {summary['skipped']} already present, "
          f"{len(summary['failed'])} failed of {n} images in {summary['seconds']:.2f} s")
    for failure in summary["failed"]:
        print(f"  failed: {failure['image']}: {failure['error']}")
    if summary["failed"]:
        print(f"  (listed in {failures_path(args.output)})")
    return 1 if summary["failed"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
