"""Are the Kubernetes manifests of docs/deploy/kubernetes/ valid, one pod a shard, and is the sandbox tier their
securityContext gives the one they say, holding what it must?

What runs here, without a cluster: every manifest against Kubernetes' published OpenAPI schemas, strictly (no
unknown field), with kubernetes-validate (PyPI, the dev extra), which carries them, offline, for each Kubernetes
release; each pod's own shell command, in /bin/sh, with the kit's and the volume's paths put where they are here,
grading a class in shards and merging it; and the hostile submissions in the uid tier under exactly the
capabilities shards.yaml grants (and, beside it, the default set of containerd's pods, containerd/containerd
pkg/oci/spec.go defaultUnixCaps), as root with no_new_privs, the kit's sources closed to other uids as the image
must have them. What a cluster would add (its scheduler, the volume, the runtime's seccomp and AppArmor
profiles, a read-only cgroup file system) is not run.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from autograder import KIT_ROOT
from autograder.config import GradingConfig
from autograder.deliver.grade_all import batch

from ..deliver.cohort import NAME, assert_same_class, cohort_on_canvas
from ..hosts.kit_python import private_copy

MANIFESTS = KIT_ROOT / "docs" / "deploy" / "kubernetes"
OLDEST = "1.33.0"  # backoffLimitPerIndex and podFailurePolicy's FailIndex are stable from 1.33
CONTAINERD_DEFAULT = ["CHOWN", "DAC_OVERRIDE", "FSETID", "FOWNER", "SETGID", "SETUID", "SETPCAP", "NET_BIND_SERVICE",
                      "KILL"]  # fmt: skip
HOSTILE = [
    "leave_a_secret.py",
    "look_for_the_secret.py",
    "sysv_shm_hoard.py",
    "memfd_hoard.py",
    "dev_shm_hoard.py",
    "orphans.py",
    "read_classmates.py",
]  # fmt: skip  (what a capability decides: IPC, /proc, kill, files)


def documents(name: str) -> list[dict]:
    return list(yaml.safe_load_all((MANIFESTS / name).read_text()))


def container(job: dict) -> dict:
    (only,) = job["spec"]["template"]["spec"]["containers"]
    return only


def env_of(job: dict) -> dict[str, str]:
    return {e["name"]: e["value"] for e in container(job)["env"]}


def test_every_manifest_follows_kubernetes_schemas():
    """Does each document of each manifest validate, strictly, against the oldest Kubernetes it needs and the
    newest kubernetes-validate knows; and is a misspelt field refused (the check can fail)?"""
    from kubernetes_validate import validate
    from kubernetes_validate.utils import ValidationError, latest_version

    names = sorted(p.name for p in MANIFESTS.glob("*.yaml"))
    assert names == ["class-volume.yaml", "merge.yaml", "shards-gpu.yaml", "shards.yaml"]
    for name in names:
        for document in documents(name):
            for version in (OLDEST, latest_version()):
                validate(document, version, strict=True)
    job = documents("shards.yaml")[0]
    job["spec"]["completionMod"] = job["spec"].pop("completionMode")
    with pytest.raises(ValidationError):
        validate(job, OLDEST, strict=True)


@pytest.mark.parametrize("name", ["shards.yaml", "shards-gpu.yaml"])
def test_each_pod_of_the_indexed_job_is_one_shard(name, tmp_path):
    """An Indexed Job of N pods, N the shards' count everywhere (completions, parallelism, SHARDS, merge's SHARDS):
    does pod I-1's own command, run in /bin/sh, grade shard I of N into its own folder?"""
    job = documents(name)[0]
    spec, env = job["spec"], env_of(job)
    assert spec["completionMode"] == "Indexed" and spec["template"]["spec"]["restartPolicy"] == "Never"
    shards = spec["completions"]
    assert spec["parallelism"] == shards == int(env["SHARDS"]) == int(env_of(documents("merge.yaml")[0])["SHARDS"])
    command = container(job)["command"] + [container(job)["args"][0].replace("/kit/.venv/bin/python", "echo")]
    for index in range(shards):
        done = subprocess.run(
            command, env={**env, "JOB_COMPLETION_INDEX": str(index)}, capture_output=True, text=True, check=True
        )
        assert f"--shard {index + 1}/{shards} --out /class/results/shard-{index + 1} " in done.stdout, done.stdout


def test_the_sandbox_tier_each_pod_gets():
    """shards.yaml: root with the uid tier's capabilities and nothing else, no privilege escalation, no cluster
    credential; shards-gpu.yaml: a GPU (its resource, node label, taint), privileged (a cgroup CUDA's memory can be
    bounded by, and the hardened tier); merge.yaml: root with no capability (it grades no one)."""
    cpu, gpu, merge = (documents(name)[0] for name in ("shards.yaml", "shards-gpu.yaml", "merge.yaml"))
    context = container(cpu)["securityContext"]
    assert context["runAsUser"] == 0 and context["allowPrivilegeEscalation"] is False
    assert context["capabilities"] == {
        "drop": ["ALL"],
        "add": ["CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETGID", "SETUID", "SYS_PTRACE"],
    }
    for job in (cpu, gpu, merge):
        assert job["spec"]["template"]["spec"]["automountServiceAccountToken"] is False
    pod = gpu["spec"]["template"]["spec"]
    assert container(gpu)["resources"]["limits"]["nvidia.com/gpu"] == 1
    assert pod["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    assert pod["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert container(gpu)["securityContext"]["privileged"] is True and "--device cuda" in container(gpu)["args"][0]
    assert container(merge)["securityContext"]["capabilities"] == {"drop": ["ALL"]}


@pytest.mark.slow
def test_the_pods_commands_grade_a_class_in_shards_and_merge_it(tmp_path):
    """Each shard pod's command and then the merge pod's, run here in /bin/sh with /kit and /class put where they
    are here: is the class the merge writes the one a single grade-all writes?"""
    volume = tmp_path / "class"
    (volume / "results").mkdir(parents=True)
    export = cohort_on_canvas(volume / "export")

    def run(job: dict, **extra: str) -> None:
        script = container(job)["args"][0].replace("/kit/.venv/bin/python", sys.executable)
        script = re.sub(r"(?<=[\s\"])/class(?=/)", str(volume), script)  # the volume's mount point, not results/class
        environment = {**os.environ, **env_of(job), "EXPORT": str(export), "ASSIGNMENT": NAME}
        done = subprocess.run(
            container(job)["command"] + [script], env={**environment, **extra}, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]

    shards = documents("shards.yaml")[0]
    for index in range(shards["spec"]["completions"]):
        run(shards, JOB_COMPLETION_INDEX=str(index))
    run(documents("merge.yaml")[0])
    one = tmp_path / "one"
    assert batch.grade_all(export, NAME, one, GradingConfig(), jobs=2, progress=False) == 0
    assert_same_class(one, volume / "results" / "class")


def hostile_set_with_capabilities(capabilities: list[str], folder: Path) -> dict:
    """The hostile submissions that capabilities decide, graded as root holding exactly these capabilities (the
    bounding set: root's after exec) and no_new_privs, from a copy of the kit whose sources only root reads."""
    if os.geteuid() != 0:
        pytest.skip("a pod's root: this test needs root")
    kit = private_copy(folder / "kit")
    os.chmod(folder, 0o755)
    out = folder / "report.json"
    bounding = "-all," + ",".join(f"+{c.lower()}" for c in capabilities)
    inside = [
        "setpriv", f"--bounding-set={bounding}", "--inh-caps=-all", "--no-new-privs", "--",
        "PYTHON", "-m", "tests.sandbox.hostile_run", str(out), "--only", *HOSTILE,
    ]  # fmt: skip
    start = f"import os, sys; command = {inside!r}; command[command.index('PYTHON')] = sys.executable; "
    start += "os.execvp(command[0], command)"
    done = subprocess.run(
        [sys.executable, str(KIT_ROOT / "tests" / "hosts" / "kit_python.py"), "--kit", str(kit), "--", "-c", start],
        capture_output=True,
        text=True,
        cwd=kit,
        timeout=900,
    )
    assert done.returncode == 0 and out.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(out.read_text())


@pytest.mark.slow(seconds=11)
@pytest.mark.usefixtures("mha_grader")  # the reference's outputs cached, for the kit's copy
def test_the_pods_capabilities_give_the_uid_tier_and_it_holds(tmp_path):
    """With shards.yaml's capabilities: the uid tier (the hardened one refused: no CAP_SYS_ADMIN), and do the
    hostile submissions that capabilities decide (System V objects, files deleted and kept open, a classmate's
    files, orphans, a secret for the next student) earn only their honest points and leave nothing behind?"""
    capabilities = container(documents("shards.yaml")[0])["securityContext"]["capabilities"]["add"]
    report = hostile_set_with_capabilities(capabilities, tmp_path)
    assert report["tier"]["tier"] == "uid" and re.search(r"not hardened: .*unshare", report["tier"]["why"])
    problems = {name: found for name, found in report["problems"].items() if found}
    assert not problems, json.dumps(problems, indent=1)[:4000]
    assert report["changed"] == []


@pytest.mark.slow(seconds=14)
@pytest.mark.usefixtures("mha_grader")  # the reference's outputs cached, for the kit's copy
def test_a_default_pod_gets_the_uid_tier_and_no_secret_crosses(tmp_path):
    """With a default pod's capabilities (containerd's: no CAP_SYS_ADMIN, no CAP_SYS_PTRACE): the uid tier, and no
    secret left for the next student (its System V objects removed without CAP_SYS_ADMIN), no classmate read, no
    orphan kept? (Files a student deleted and keeps open are not counted there, /proc/<pid>/fd being closed to the
    grader: the memory bound stops those hoards, with another message.)"""
    report = hostile_set_with_capabilities(CONTAINERD_DEFAULT, tmp_path)
    assert report["tier"]["tier"] == "uid"
    for name in (
        "leave_a_secret.py",
        "look_for_the_secret.py",
        "sysv_shm_hoard.py",
        "orphans.py",
        "read_classmates.py",
    ):
        assert report["problems"][name] == [], (name, report["problems"][name])
    assert report["changed"] == []
