"""Images per second of satfeat.batch.run on a Dask LocalCluster of 1 and of 2 worker processes
(one task thread and one single-threaded CPU detector each), over the images of a folder. The
cluster is started once per worker count and not timed; each repetition writes a fresh HDF5
file; the figure is the median of the repetitions (docs/SCALE.md).

usage: PYTHONPATH=build/python /usr/bin/python3 bench/dask_batch_throughput.py DIR [REPEAT]
"""
import os
import statistics
import sys
import tempfile

from distributed import Client, LocalCluster

from satfeat import batch


def main():
    folder, repeat = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5
    items = batch.list_images([folder])
    serial = []
    for _ in range(2):
        import time
        t = time.monotonic()
        batch.extract_serial(items, backend="cpu", threads=1)
        serial.append(len(items) / (time.monotonic() - t))
    print(f"{len(items)} images; serial in one process, 1 thread: {max(serial):.1f} images/s")
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            rates = []
            with tempfile.TemporaryDirectory() as tmp:
                for k in range(repeat):
                    out = os.path.join(tmp, f"f{k}.h5")
                    s = batch.run(items, out, client, backend="cpu", threads=1, progress=False)
                    assert s["written"] == len(items) and not s["failed"]
                    rates.append(len(items) / s["seconds"])
            print(f"{workers} worker(s): median {statistics.median(rates):.1f} images/s "
                  f"(runs: {', '.join(f'{r:.1f}' for r in rates)})")


if __name__ == "__main__":
    main()
