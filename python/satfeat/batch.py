"""Keypoints and descriptors of an image collection on a Dask distributed cluster, written to one
HDF5 features file in hloc's features.h5 layout (satfeat.features_h5).

    python3 -m satfeat.batch IMAGES... -o features.h5 [--workers N | --scheduler ADDRESS]

IMAGES are image files (.png .pgm .ppm .pnm .jpg .jpeg, any case) and folders, searched
recursively; an image's name in the file is its path relative to the root folder (--root, by
default the deepest folder holding every input: satfeat.image_names). Design (docs/SCALE.md):

- Each worker process holds one satfeat.Detector per device it owns (all CUDA devices it sees,
  or one CPU detector), created by a worker plugin and handed to the worker's task threads
  through a queue, so a detector is never used by two threads at once and never rebuilt per
  image (only grown when an image is larger than it).
- A task is a chunk of image paths: the worker reads the files itself, detects and returns the
  features (never pixels) to the client, the file's only writer.
- Before any work (and before the cluster starts): the names are checked (UTF-8, no clashes),
  the output's lock is taken (satfeat.output_lock) and the output is opened for writing.
- Restartable: images already stored whole in the output are skipped, and so are the images
  OUTPUT.failures.json lists (unless --retry-failed). A bad image is recorded there with its
  error and does not stop the run.
- A chunk whose worker dies (KilledWorker) is retried image by image, one image at a time on the
  cluster, once the other chunks are done; an image whose worker dies twice while it runs alone
  is recorded as a failure ("killed its worker twice") and the run goes on.
"""
import argparse
import contextlib
import os
import queue
import sys
import time

import satfeat
from satfeat import failures_file, features_h5, image_names
from satfeat.output_lock import LockError, OutputLock
from satfeat.progress import ProgressBar

IMAGE_SUFFIXES = (".png", ".pgm", ".ppm", ".pnm", ".jpg", ".jpeg")
PLUGIN_NAME = "satfeat-detectors"
KILLS_TO_FAIL = 2  # deaths of a worker running one image alone that make it a failure ("twice")
failures_path = failures_file.failures_path


class BatchError(Exception):
    """A run refused before any work, with a message for the user (the tool exits 1)."""


class OutputError(BatchError, OSError):
    """The output cannot be opened for writing, or is not a features file."""


class NamesError(BatchError, ValueError):
    """Image names that cannot be stored one to one (not UTF-8, or clashing)."""


def list_images(inputs, root=None):
    """(name, path) of every image under `inputs` (files and folders), sorted by name; names
    relative to `root` (default: the deepest folder holding every input)."""
    return image_names.list_images(inputs, IMAGE_SUFFIXES, root)[0]


def _library_budget(worker_limit):
    """The memory limit for one detector made now in this worker: what is left below the
    nanny's termination threshold of `worker_limit` after what the process holds already (the
    interpreter, the image just read), so the library refuses (satfeat.Error, a recorded
    failure) an image the nanny would otherwise kill the worker for."""
    import dask
    import psutil

    fraction = dask.config.get("distributed.worker.memory.terminate", 0.95) or 1.0
    return max(int(worker_limit * fraction) - psutil.Process().memory_info().rss, 1)


class DetectorPool:
    """One Detector per device, lent to one thread at a time. A detector is recreated larger
    when an image exceeds its size (results do not depend on the detector's maximum size).
    `memory_limit` (bytes, the Dask worker's; 0: none) bounds each detector's host memory when
    the extension has Detector.set_memory_limit (python/src, another change): with an older
    extension it is not passed, and an image too large for the worker kills it instead (then
    the client retries and records it, see run)."""

    def __init__(self, backend, devices, params, threads, memory_limit=0):
        self.backend, self.params, self.threads = backend, dict(params), threads
        self.memory_limit = memory_limit or 0
        self.free = queue.Queue()
        for device in devices:
            self.free.put((device, None))

    def _limits(self):
        if self.memory_limit and hasattr(satfeat.Detector, "set_memory_limit"):
            return {"memory_limit": _library_budget(self.memory_limit)}
        return {}

    def detect(self, image):
        """(keypoints, descriptors) of a uint8 image on the first free device."""
        device, det = self.free.get()
        try:
            h, w = image.shape
            if det is None or det.width < w or det.height < h:
                size = (w, h) if det is None else (max(w, det.width), max(h, det.height))
                det = None  # free the old one first (device memory)
                det = satfeat.Detector(size[0], size[1], backend=self.backend, device=device,
                                       threads=self.threads, **self.params, **self._limits())
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
            # the library's memory limit follows the worker's (None / 0: the worker has none)
            manager = getattr(worker, "memory_manager", worker)  # moved there in Dask 2022.x
            self.pool = DetectorPool(self.backend, devices, self.params, self.threads,
                                     memory_limit=getattr(manager, "memory_limit", 0))

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


class Plan:
    """What a run will do, settled before any work: the images to extract (`todo`), the names
    already in the output, the failures it lists, and the attributes new groups get."""

    def __init__(self, items, output, params, retry_failed):
        self.items, self.output = list(items), str(output)
        self.params = features_h5.detector_params(params)
        self.attrs = features_h5.provenance(self.params)
        self.present, self.failed = set(), {}
        self.retry_failed = retry_failed
        self.todo, self.skipped, self.skipped_failed = [], 0, 0


def check_output_path(output):
    """OutputError when `output` cannot be a file: its folder is missing, or it is a folder."""
    parent = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(parent):
        raise OutputError(f"{output}: the folder {parent} does not exist")
    if os.path.isdir(output):
        raise OutputError(f"{output} is a folder; name an HDF5 file")


def _open_for_writing(output):
    """h5py.File(output, "a"), with the reasons it can fail told apart (OutputError)."""
    import h5py

    check_output_path(output)
    parent = os.path.dirname(os.path.abspath(output))
    if os.path.exists(output):
        if not h5py.is_hdf5(output):
            raise OutputError(f"{output} exists and is not an HDF5 file; it is left as it is "
                              "(move it away, or name another output)")
        if not os.access(output, os.W_OK):
            raise OutputError(f"{output} is read-only: make it writable, or name another output")
    elif not os.access(parent, os.W_OK):
        raise OutputError(f"{output}: the folder {parent} is not writable")
    try:
        return h5py.File(output, "a")
    except OSError as e:
        text = str(e)
        if isinstance(e, BlockingIOError) or "unable to lock file" in text:
            # HDF5's own lock: another process (a reader, or a tool that is not satfeat.batch)
            # has the file open; the file itself may be fine
            raise OutputError(f"{output} is open in another process (HDF5 file lock: {text}); "
                              "close it there and run again") from e
        if isinstance(e, PermissionError) or "ermission denied" in text or "ead-only" in text:
            raise OutputError(f"{output} cannot be written ({text})") from e
        raise OutputError(f"{output}: cannot open it as an HDF5 features file ({text}); it is "
                          "left as it is: it may be damaged (a writer killed mid-write); move it "
                          "away to start again") from e


def prepare(items, output, params=None, retry_failed=False, root_attrs=None):
    """Checks the names and the output, and settles what to do (a Plan). Nothing is extracted;
    the output is created when missing. Raises NamesError or OutputError. `root_attrs` (the
    command line, the names' root) are stored at the file's root when it is created."""
    bad = image_names.not_utf8(name for name, _ in items)
    if bad:
        raise NamesError(f"{len(bad)} image names are not UTF-8 (HDF5 names are): rename them "
                         "(e.g. convmv -f latin1 -t utf8): "
                         + ", ".join(image_names.printable(n) for n in bad))
    problems = image_names.clashes(items)
    if problems:
        raise NamesError("image names clash (one HDF5 group each): " + "; ".join(problems))
    plan = Plan(items, output, params, retry_failed)
    try:
        plan.failed = failures_file.load(output)
    except ValueError as e:
        raise OutputError(str(e)) from e
    with _open_for_writing(output) as f:
        plan.present = set(features_h5.names_in(f))
        problems = image_names.clashes(items, plan.present)
        if problems:
            raise NamesError(f"image names clash with {output}'s: " + "; ".join(problems))
        stored = f.attrs.get("satfeat_params")
        if stored is not None and stored != plan.attrs["satfeat_params"]:
            raise OutputError(f"{output} holds features of other detector parameters "
                              f"({stored}); this run's: {plan.attrs['satfeat_params']}: name "
                              "another output")
        old_unit = features_h5.radian_angle_images(f, sorted(plan.present))
        if old_unit:
            raise OutputError(f"{output} holds {len(old_unit)} images whose angles are in radians "
                              f"(written by an older satfeat, e.g. {old_unit[0]}); this version "
                              "writes degrees: name another output")
        if "satfeat_version" not in f.attrs and not plan.present:  # a new file (an older
            # file's images were made with parameters it does not record: it gets none)
            for key, value in {**plan.attrs, **(root_attrs or {})}.items():
                f.attrs[key] = value
    for name in list(plan.failed):  # stored since (a rerun that retried it, or another tool)
        if name in plan.present:
            del plan.failed[name]
    for item in items:
        if item[0] in plan.present:
            plan.skipped += 1
            continue
        if item[0] in plan.failed and not retry_failed:
            plan.skipped_failed += 1
            continue
        plan.todo.append(item)
    return plan


def _memory_limit_text(killed, client):
    """The memory limit of the worker that died (KilledWorker.last_worker), else those of the
    cluster's workers (the client's cached view, which misses workers being restarted), as
    text for a failure's reason."""
    limit = getattr(getattr(killed, "last_worker", None), "memory_limit", None)
    limits = {limit} if limit is not None else {
        w.get("memory_limit") or 0 for w in client.scheduler_info().get("workers", {}).values()}
    limits = sorted(n for n in limits if n)
    if not limits:
        return "no worker memory limit"
    return "memory limit " + " / ".join(f"{n} bytes" for n in limits) + "?"


def _is_killed_worker(exc):
    from distributed.scheduler import KilledWorker

    return isinstance(exc, KilledWorker)


def run(items, output, client, backend="auto", params=None, threads=1, chunk=4, progress=True,
        on_result=None, resources=None, split_devices=False, retry_failed=False, plan=None,
        interrupts=None):
    """Extracts the features of `items` ((name, path) pairs) on `client`'s cluster into the HDF5
    file `output` (created, or appended to: images already in it are skipped, and images its
    failures file lists unless `retry_failed`). Holds OUTPUT.lock meanwhile. Returns a summary
    dict: written, skipped (already present), skipped_failed, failed (the failures file's list
    after the run: {image, error}), seconds. `on_result(done, total)` is called after each
    finished chunk (the tests use it to kill a worker mid-run). `resources` (e.g. {"GPU": 1})
    is what each task claims of a worker's Dask resources: with workers started as
    `dask worker ADDRESS --nthreads G --resources GPU=G` on hosts of G GPUs, at most G chunks
    run at once per worker, one per detector of its pool. `split_devices`: each worker owns only
    device (name mod device count) instead of every device it sees (for a LocalCluster of one
    worker per GPU). `plan`: a prepare() result made earlier by the same process (main makes it
    before starting the cluster); `interrupts`: a satfeat.interrupts.Interrupts whose signals
    wait while a chunk's results are written."""
    start = time.monotonic()
    with OutputLock(output):
        if plan is None:
            plan = prepare(items, output, params, retry_failed)
        return _execute(plan, client, backend, threads, chunk, progress, on_result, resources,
                        split_devices, interrupts, start)


def _execute(plan, client, backend, threads, chunk, progress, on_result, resources,
             split_devices, interrupts, start):
    from distributed import as_completed, wait

    critical = interrupts.critical if interrupts else contextlib.nullcontext
    todo = plan.todo
    if todo:  # nothing to do needs no cluster (main then starts none: client None)
        plugin = _worker_plugin_class()(backend, plan.params, threads, split_devices)
        client.register_worker_plugin(plugin, name=PLUGIN_NAME)
    chunks = [todo[i:i + chunk] for i in range(0, len(todo), chunk)]
    futures = [client.submit(extract_chunk, c, pure=False, resources=resources) for c in chunks]
    by_key = {future.key: c for future, c in zip(futures, chunks)}
    bar = ProgressBar(len(todo), label="satfeat", stream=sys.stderr)
    bar.enabled = bar.enabled and progress
    stats = {"written": 0, "new_failures": 0}
    suspects = []  # images of chunks whose worker died: retried one by one at the end

    def store(f, results):
        """Writes one task's results and the failures file, as one step for signals."""
        with critical():
            for name, status, payload in results:
                if status == "ok":
                    if name not in plan.present:  # a result that arrives twice is written once
                        features_h5.write_image(f, name, payload, plan.attrs)
                        plan.present.add(name)
                        plan.failed.pop(name, None)
                        stats["written"] += 1
                else:
                    plan.failed[name] = payload
                    stats["new_failures"] += 1
            f.flush()
            failures_file.save(plan.output, plan.failed)

    try:
        with _open_for_writing(plan.output) as f:  # again: another process may have it now
            done = 0
            for future in as_completed(futures) if futures else ():
                if future.status == "error" and _is_killed_worker(future.exception()):
                    suspects.extend(by_key[future.key])
                else:
                    store(f, future.result())  # another error than a worker's death: raised
                    bar.advance(len(by_key[future.key]))
                future.release()
                done += 1
                if on_result:
                    on_result(done, len(chunks))
            for item in suspects:  # alone on the cluster, so a death is this image's
                kills = 0
                while True:
                    single = client.submit(extract_chunk, [item], pure=False,
                                           resources=resources)
                    wait(single)
                    killed = single.exception() if single.status == "error" else None
                    if _is_killed_worker(killed):
                        single.release()
                        kills += 1
                        if kills < KILLS_TO_FAIL:
                            continue
                        store(f, [(item[0], "failed", "killed its worker twice "
                                   f"({_memory_limit_text(killed, client)})")])
                    else:
                        store(f, single.result())
                        single.release()
                    break
                bar.advance(1)
        if not plan.todo:  # nothing ran: still write what the file lists (dropped entries)
            with critical():
                failures_file.save(plan.output, plan.failed)
    finally:
        bar.close()
        for future in futures:
            future.release()
    return {"written": stats["written"], "skipped": plan.skipped,
            "skipped_failed": plan.skipped_failed,
            "failed": failures_file.as_list(plan.failed), "new_failures": stats["new_failures"],
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
    ap.add_argument("--root", help="folder the image names are relative to (default: the "
                    "deepest folder holding every input)")
    ap.add_argument("--retry-failed", action="store_true",
                    help="extract again the images OUTPUT.failures.json lists (default: skip)")
    ap.add_argument("--scheduler", help="address of a running Dask scheduler (default: a "
                    "LocalCluster on this machine)")
    ap.add_argument("--workers", type=int, default=0,
                    help="LocalCluster worker processes (default: one per CUDA device, each "
                    "owning its device; without a device (or --backend cpu) the CPU count)")
    ap.add_argument("--threads-per-worker", type=int, default=1,
                    help="LocalCluster task threads per worker (default 1; one per GPU it owns)")
    ap.add_argument("--memory-limit", default="auto",
                    help="LocalCluster memory limit per worker, e.g. 4GiB (default: Dask's, "
                    "the machine's memory shared by the workers); 0: none")
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
    try:
        items, root = image_names.list_images(args.images, IMAGE_SUFFIXES, args.root)
    except ValueError as e:
        ap.error(str(e))
    missing = [p for _, p in items if not os.path.lexists(p)]
    if missing:
        ap.error(f"no such file: {missing[0]}")
    command = sys.argv[1:] if argv is None else list(argv)
    from satfeat.interrupts import Interrupts

    with Interrupts() as interrupts:
        try:
            return _main(args, items, root, command, interrupts)
        except (BatchError, LockError) as e:
            print(f"python3 -m satfeat.batch: {image_names.printable(str(e))}", file=sys.stderr)
            return 1


def _main(args, items, root, command, interrupts):
    """The run of main once its arguments are checked: lock, checks, cluster, extraction."""
    import json

    params = dict(args.param)
    params.setdefault("descriptor", "surf64")
    root_attrs = {"satfeat_command": json.dumps([image_names.printable(a) for a in command]),
                  "satfeat_root": image_names.printable(root)}
    check_output_path(args.output)
    with OutputLock(args.output):  # before the cluster: a refused run costs nothing
        plan = prepare(items, args.output, params, args.retry_failed, root_attrs)
        summary = _run_on_cluster(args, plan, interrupts)
    n = len(items)
    print(f"{args.output}: {summary['written']} written, {summary['skipped']} already present, "
          f"{len(summary['failed'])} failed of {n} images in {summary['seconds']:.2f} s")
    if summary["skipped_failed"]:
        print(f"  {summary['skipped_failed']} images listed as failed by earlier runs were "
              "skipped (--retry-failed tries them again)")
    for failure in summary["failed"]:
        print(f"  failed: {failure['image']}: {failure['error']}")
    if summary["failed"]:
        print(f"  (listed in {failures_path(args.output)})")
    return 1 if summary["failed"] else 0


def _run_on_cluster(args, plan, interrupts):
    import dask
    from distributed import Client, LocalCluster

    gpus = satfeat.cuda_device_count() if args.backend != "cpu" else 0
    split = not args.scheduler and gpus > 0 and args.workers in (0, gpus)
    workers = args.workers or gpus or os.cpu_count() or 1
    cluster = client = None
    if not plan.todo:  # everything is stored or listed as failed: no cluster to start
        return run(plan.items, args.output, None, params=plan.params, progress=False,
                   retry_failed=args.retry_failed, plan=plan, interrupts=interrupts)
    try:
        # a signal waits until the cluster is made: one stopped half-way could not be closed,
        # and its nannies would keep the process alive, restarting workers
        with interrupts.critical():
            if args.scheduler:
                client = Client(args.scheduler)
            else:
                # a task whose worker dies fails at once (KilledWorker) instead of being rerun
                # on up to 3 more workers: run() then isolates its images, one at a time
                with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
                    limit = args.memory_limit
                    cluster = LocalCluster(n_workers=workers,
                                           threads_per_worker=args.threads_per_worker,
                                           processes=True, dashboard_address=None,
                                           memory_limit=0 if limit == "0" else limit)
                client = Client(cluster)
        return run(plan.items, args.output, client, backend=args.backend, params=plan.params,
                   threads=args.detector_threads, chunk=args.chunk,
                   progress=not args.no_progress,
                   resources=dict(args.task_resources) or None, split_devices=split,
                   retry_failed=args.retry_failed, plan=plan, interrupts=interrupts)
    finally:
        with interrupts.critical():  # a second signal does not cut the closing short
            if client is not None:
                client.close()
            if cluster is not None:
                cluster.close()


if __name__ == "__main__":
    raise SystemExit(main())
