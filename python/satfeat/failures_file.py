"""OUTPUT.failures.json: the images of an output that could not be extracted, with the reason,
as a JSON list of {"image": name, "error": text} sorted by name.

It is the output's record, not one run's: a run starts from it, skips the images it lists
(unless told to retry them), adds its own failures and drops the images it wrote. It is
rewritten after every chunk (to a temporary file renamed over it, so a run killed at any point
leaves the old list or the new one, never half of one), so a failure found by a run that is then
killed is not lost.
"""
import json
import os


def failures_path(output):
    """Where the failures of `output` are listed."""
    return str(output) + ".failures.json"


def load(output):
    """{name: error} from the failures file of `output` ({} when there is none)."""
    try:
        with open(failures_path(output), encoding="utf-8") as f:
            entries = json.load(f)
    except FileNotFoundError:
        return {}
    except ValueError as e:
        raise ValueError(f"{failures_path(output)}: not a failures list ({e}); move it away "
                         "to retry every image not in the output") from e
    return {e["image"]: e["error"] for e in entries}


def as_list(failures):
    """The file's entries, sorted by image name."""
    return [{"image": name, "error": failures[name]} for name in sorted(failures)]


def save(output, failures):
    """Replaces the failures file of `output` with `failures` ({name: error}), atomically."""
    path = failures_path(output)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(as_list(failures), f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
