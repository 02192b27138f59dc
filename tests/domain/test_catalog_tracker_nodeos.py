"""Golden lines from sweep 13 over what a GPU node's operating-system services print into its
system log (signatures-nodeos.toml): systemd's failures of the node services a job needs, its
OOM-kill and watchdog notices, systemd-oomd's kills, journald's notices, NetworkManager's and
systemd-networkd's carrier losses, chrony's and ptp4l's clock steps, mcelog's page threshold,
kdump's saved vmcore, autofs's failed NFS mounts and nslcd's unreachable directory.

Each line is a real one from the public thread cited beside it, or, where none was found, the
emitter's format string rendered (said so beside it); every line goes through the scanner's own
matcher. Blame is pinned to what a careful SRE reads from the one line: a node service that
failed is the node's (below the naming threshold: its install, its configuration or a controller
down fail it too); a service killed by a signal, a watchdog, a clock step, an unclean journal, a
saved vmcore, a failed automount and an unreachable directory are symptoms; a memory kill is the
application's, below the kernel's own OOM line. Healthy look-alikes (clean exits, stops by
SIGTERM, a link coming up, sub-second clock steps, container veths) must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    family_contract,
    family_keys,
    golden_line_checks,
    hits,
)

FILE = "signatures-nodeos.toml"
FAMILY = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "systemd.node_service_failed": Blame.HARDWARE,
    "systemd.node_service_killed": Blame.SYMPTOM,
    "systemd.unit_oom_killed": Blame.APPLICATION,
    "oomd.killed": Blame.APPLICATION,
    "systemd.watchdog_timeout": Blame.SYMPTOM,
    "journald.unclean_shutdown": Blame.SYMPTOM,
    "journald.notice": Blame.INFO,
    "netmgr.carrier_lost": Blame.HARDWARE,
    "networkd.carrier_lost": Blame.HARDWARE,
    "chrony.clock_stepped": Blame.SYMPTOM,
    "ptp4l.clock_jump": Blame.SYMPTOM,
    "mcelog.page_threshold": Blame.HARDWARE,
    "kdump.vmcore_saved": Blame.SYMPTOM,
    "automount.mount_failed": Blame.SYMPTOM,
    "nslcd.ldap_unreachable": Blame.SYMPTOM,
    "munge.credential_rejected": Blame.SYMPTOM,
    "logind.shutdown_requested": Blame.TRANSIENT,
    "coredump.process_crashed": Blame.SYMPTOM,
}

NAMESPACES = frozenset(
    {"systemd", "oomd", "journald", "netmgr", "networkd", "chrony", "ptp4l", "mcelog", "kdump",
     "automount", "nslcd", "munge", "logind", "coredump"}
)  # fmt: skip

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FILE: NAMESPACES}, BLAME)

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # stackhpc/ansible-slurm-appliance issue #443 (slurmd could not fetch its configuration)
    (
        "slurmd.service: Main process exited, code=exited, status=1/FAILURE",
        "systemd.node_service_failed",
        {"unit": "slurmd", "status": "1/FAILURE"},
    ),
    (
        "slurmd.service: Failed with result 'exit-code'.",
        "systemd.node_service_failed",
        {"unit": "slurmd", "result": "exit-code"},
    ),
    # GoogleCloudPlatform/cluster-toolkit issue #1600 (systemd 219's wordings)
    (
        "Aug 09 22:11:24 hpccameco-controller systemd[1]: slurmd.service: main process exited, "
        "code=exited, status=1/FAILURE",
        "systemd.node_service_failed",
        {"unit": "slurmd", "status": "1/FAILURE"},
    ),
    (
        "Aug 09 22:11:24 hpccameco-controller systemd[1]: Unit slurmd.service entered failed state.",
        "systemd.node_service_failed",
        {"unit": "slurmd"},
    ),
    # kubernetes/minikube issues #5690 and #6166 (kubelet in a restart loop)
    (
        "Oct 22 05:17:19 localhost.localdomain systemd[1]: kubelet.service: Main process exited, "
        "code=exited, status=203/EXEC",
        "systemd.node_service_failed",
        {"unit": "kubelet", "status": "203/EXEC"},
    ),
    (
        "Dec 27 10:55:24 localhost.localdomain systemd[1]: kubelet.service: main process exited, "
        "code=exited, status=255/n/a",
        "systemd.node_service_failed",
        {"unit": "kubelet", "status": "255/n/a"},
    ),
    # dun/munge issue #146 (munged refusing an insecure log file) and #60 (systemd 219)
    (
        "Sep 17 09:50:19 master systemd[1]: munge.service: Control process exited, code=exited, "
        "status=1/FAILURE",
        "systemd.node_service_failed",
        {"unit": "munge", "status": "1/FAILURE"},
    ),
    (
        "Sep 17 09:50:19 master systemd[1]: Failed to start MUNGE authentication service.",
        "systemd.node_service_failed",
        {"description": "MUNGE authentication service"},
    ),
    (
        "Jul 31 17:08:52 localhost.localdomain systemd[1]: munge.service: control process exited, "
        "code=exited status=1",
        "systemd.node_service_failed",
        {"unit": "munge", "status": "1"},
    ),
    # dun/munge issue #92 (systemctl's own line)
    (
        "Job for munge.service failed because the control process exited with error code. See "
        '"systemctl status munge.service" and "journalctl -xe" for details',
        "systemd.node_service_failed",
        {"unit_job": "munge"},
    ),
    # systemd src/core/service.c and job.c, rendered (the start limit; systemd 249+'s unit name)
    (
        "systemd[1]: slurmd.service: Start request repeated too quickly.",
        "systemd.node_service_failed",
        {"unit": "slurmd"},
    ),
    (
        "systemd[1]: containerd.service: Failed with result 'start-limit-hit'.",
        "systemd.node_service_failed",
        {"unit": "containerd", "result": "start-limit-hit"},
    ),
    (
        "systemd[1]: Failed to start kubelet.service - kubelet: The Kubernetes Node Agent.",
        "systemd.node_service_failed",
        {"unit_start": "kubelet"},
    ),
    # GoogleCloudPlatform/slurm-gcp pull request #26 (pkill -9 slurmd), systemd/systemd pull
    # request #20690's wording on slurmd (rendered with this unit)
    (
        "systemd[1]: slurmd.service: Main process exited, code=killed, status=9/KILL",
        "systemd.node_service_killed",
        {"unit": "slurmd", "signal": "9/KILL"},
    ),
    (
        "systemd[1]: kubelet.service: Failed with result 'signal'.",
        "systemd.node_service_killed",
        {"unit": "kubelet"},
    ),
    # a GCE startup script's python worker, a Docker container's memory cgroup and a user session,
    # each beside the kernel's OOM line (found through the code index)
    (
        "systemd[1]: google-startup-scripts.service: A process of this unit has been killed by the "
        "OOM killer.",
        "systemd.unit_oom_killed",
        {"unit": "google-startup-scripts.service"},
    ),
    (
        "Apr 15 23:04:52 localhost systemd[1]: docker-60ef727c9751aac9084702bca274544f94f1bb070ace95"
        "e8a79911c22b01a91d.scope: A process of this unit has been killed by the OOM killer.",
        "systemd.unit_oom_killed",
        {"unit": "docker-60ef727c9751aac9084702bca274544f94f1bb070ace95e8a79911c22b01a91d.scope"},
    ),
    (
        "Apr 05 08:24:14 kaspa-devnet systemd[1]: session-689.scope: A process of this unit has "
        "been killed by the OOM killer.",
        "systemd.unit_oom_killed",
        {"unit": "session-689.scope"},
    ),
    # systemd src/core/service.c, rendered (the unit's result after the kill)
    (
        "systemd[1]: slurmd.service: Failed with result 'oom-kill'.",
        "systemd.unit_oom_killed",
        {"unit": "slurmd.service"},
    ),
    # systemd/systemd issue #23606 (the kill and the unit's echo of it)
    (
        "Dec 18 19:34:56 user-desktop systemd-oomd[840]: Killed /user.slice/user-1001.slice/"
        "user@1001.service/app.slice/app-org.gnome.Terminal.slice/vte-spawn-dbb4a75e-031f-480d-924b"
        "-5de5af7579d2.scope due to memory pressure for /user.slice/user-1001.slice/user@1001.service"
        " being 51.07% > 50.00% for > 20s with reclaim activity",
        "oomd.killed",
        {"monitored": "/user.slice/user-1001.slice/user@1001.service", "pressure": "51.07"},
    ),
    (
        "Dec 18 19:34:56 user-desktop systemd[1837]: vte-spawn-dbb4a75e-031f-480d-924b-5de5af7579d2"
        ".scope: systemd-oomd killed 12 process(es) in this unit.",
        "oomd.killed",
        {"count": "12"},
    ),
    # systemd/systemd pull request #42321 (the newer "Marked ... for killing")
    (
        "[   77.749670] systemd-oomd[659]: Marked /system.slice/systemd-journald.service for killing "
        "due to memory pressure for /system.slice being 85.03% > 80.00% for > 2s with reclaim "
        "activity",
        "oomd.killed",
        {"marked": "/system.slice/systemd-journald.service"},
    ),
    # systemd src/oom/oomd-manager.c, the swap kill rendered
    (
        "systemd-oomd[811]: Killed /system.slice/slurmstepd.scope/job_4711 due to swap used "
        "(2000000) / total (2097148) being more than 90.00%",
        "oomd.killed",
        {"cgroup": "/system.slice/slurmstepd.scope/job_4711"},
    ),
    # systemd src/core/service.c service_dispatch_watchdog, rendered
    (
        "systemd[1]: systemd-journald.service: Watchdog timeout (limit 3min)!",
        "systemd.watchdog_timeout",
        {"unit": "systemd-journald.service", "limit": "3min"},
    ),
    (
        "systemd[1]: kubelet.service: Failed with result 'watchdog'.",
        "systemd.watchdog_timeout",
        {"unit": "kubelet.service"},
    ),
    # systemd/systemd issue #16173 (after a forced power-off), openbmc/openbmc issue #2545
    # (systemd-journal-remote's file)
    (
        "[    4.989946] systemd-journald[566]: File /var/log/journal/2d2b0efcba8442caaf742548b8b2e6ef"
        "/system.journal corrupted or uncleanly shut down, renaming and replacing.",
        "journald.unclean_shutdown",
        {"file": "/var/log/journal/2d2b0efcba8442caaf742548b8b2e6ef/system.journal"},
    ),
    (
        "Jun 07 10:57:49 hg-68 systemd-journal-remote[17364]: File /home/journal-remote/remote-10.253"
        ".32.164.journal corrupted or uncleanly shut down, renaming and replacing.",
        "journald.unclean_shutdown",
        {"file": "/home/journal-remote/remote-10.253.32.164.journal"},
    ),
    # openshift-eng/aos-cd-jobs pull request #703 and systemd/systemd issue #7506 (rate limits);
    # sd-journal.c's skipped file, as systemd's own CI allow-list quotes it
    (
        "Oct 03 12:42:20 t540p systemd-journald[789]: Suppressed 5140 messages from /...",
        "journald.notice",
        {"count": "5140"},
    ),
    (
        "Nov 29 20:10:51 pluto systemd-journald[26393]: Suppressed 4499764 messages from "
        "run-r73aef5eb7df847df961a1031c2e5d1e2.service",
        "journald.notice",
        {"source": "run-r73aef5eb7df847df961a1031c2e5d1e2.service"},
    ),
    (
        "Journal file /var/log/journal/example/system.journal corrupted, ignoring file.",
        "journald.notice",
        {"file": "/var/log/journal/example/system.journal"},
    ),
    # a kernel mailing-list thread quoting NetworkManager on enp6s0, and a NetworkManager 1.0-era
    # syslog (both found through the code index)
    (
        "NetworkManager[857]: <info>  [1659028974.1752] device (enp6s0): state change: activated -> "
        "unavailable (reason 'carrier-changed', sys-iface-state: 'managed')",
        "netmgr.carrier_lost",
        {"iface": "enp6s0"},
    ),
    (
        "Aug 31 16:39:33 msjang NetworkManager[1201]: <info> (eth1): device state change: activated "
        "-> unavailable (reason 'carrier-changed') [100 20 40]",
        "netmgr.carrier_lost",
        {"iface": "eth1"},
    ),
    # systemd/systemd issues #16768, #15078 and #12236
    (
        "Aug 18 21:37:44 archlinux systemd-networkd[245]: enp0s5: Lost carrier",
        "networkd.carrier_lost",
        {"iface": "enp0s5"},
    ),
    (
        "Mar 20 01:09:15 hostname systemd-networkd[257]: eth0: Lost carrier",
        "networkd.carrier_lost",
        {"iface": "eth0"},
    ),
    (
        "Apr 07 11:23:01 SecHackLabs systemd-networkd[9460]: bond1: Lost carrier",
        "networkd.carrier_lost",
        {"iface": "bond1"},
    ),
    # NethServer/dev issue #5062 (two sources minutes apart), an AlmaLinux guide (a VM nine hours
    # off, found through the code index); chrony sched.c, rendered
    (
        "Jul 17 04:19:28 intranet chronyd[17789]: System clock wrong by 1721.913772 seconds, "
        "adjustment started",
        "chrony.clock_stepped",
        {"offset": "1721.913772"},
    ),
    (
        "Jul 17 04:19:32 intranet chronyd[17789]: System clock wrong by -1946.984184 seconds, "
        "adjustment started",
        "chrony.clock_stepped",
        {"offset": "-1946.984184"},
    ),
    (
        " 1月 27 22:33:06 localhost.localdomain chronyd[867]: System clock was stepped by "
        "-32400.283303 seconds",
        "chrony.clock_stepped",
        {"step": "-32400.283303"},
    ),
    ("chronyd[811]: Forward time jump detected!", "chrony.clock_stepped", {"jump": "Forward"}),
    # cisco/exanic-software issue #99 and nxp-archive/openil issue #48
    (
        "Feb 06 09:36:58 hostname ptp4l[1052]: [740401.332] clockcheck: clock jumped forward or "
        "running faster than expected!",
        "ptp4l.clock_jump",
        {"direction": "forward"},
    ),
    (
        "Sep 03 10:54:18 OpenIL ptp4l[307]: [5223.705] clockcheck: clock jumped backward or running "
        "slower than expected!",
        "ptp4l.clock_jump",
        {"direction": "backward"},
    ),
    # a syslog quoted in a write-up on mcelog's page offlining (found through the code index)
    (
        "Jun 14 20:03:13 localhost mcelog: Corrected memory errors on page 6c01e4000 exceed "
        "threshold 10 in 24h: 10 in 24h",
        "mcelog.page_threshold",
        {"page": "6c01e4000", "threshold": "10 in 24h"},
    ),
    (
        "Jun 14 20:03:13 localhost mcelog: Offlining page 6c01e4000",
        "mcelog.page_threshold",
        {"offlined": "6c01e4000"},
    ),
    # a kernel mailing-list thread, coreos/fedora-coreos-tracker issue #1698,
    # canonical/ubuntu-server-documentation pull request #565
    ("[  206.288378] kdump[569]: saving vmcore complete", "kdump.vmcore_saved", {}),
    ("[    4.715342] kdump[513]: saving vmcore failed, exitcode:1", "kdump.vmcore_saved", {}),
    (
        "[    7.006824] kdump-tools[747]:  * kdump-tools: saved vmcore in /var/crash/202601210724",
        "kdump.vmcore_saved",
        {"dir": "/var/crash/202601210724"},
    ),
    # slackhq/nebula issue #872 (after the server refused the mount)
    (
        "May 13 00:47:58 isar automount[424766]: mount(nfs): nfs: mount failure "
        "192.168.100.2:/shared/privat on /mnt/autofs/privat",
        "automount.mount_failed",
        {"export": "192.168.100.2:/shared/privat", "mountpoint": "/mnt/autofs/privat"},
    ),
    # nss-pam-ldapd nslcd/myldap.c, rendered
    (
        'nslcd[2676]: [8b4567] <passwd="alice"> failed to bind to LDAP server '
        "ldap://ldap.cluster.local/: Can't contact LDAP server: Connection refused",
        "nslcd.ldap_unreachable",
        {"uri": "ldap://ldap.cluster.local/", "error": "Can't contact LDAP server"},
    ),
    # stackhpc/ansible-slurm-appliance issue #114 (slurmctld; the slurmd's clock behind),
    # clustervision/trinity issue #424 (slurmd.log) and issue #759 (keys that differ)
    (
        "[2021-09-22T14:11:30.278] error: Munge decode failed: Expired credential",
        "munge.credential_rejected",
        {"reason": "Expired"},
    ),
    (
        "2015-09-14T06:44:37.084] error: Munge decode failed: Expired credential",
        "munge.credential_rejected",
        {"reason": "Expired"},
    ),
    (
        "May 24 07:06:46 login slurmctld[15918]: error: Munge decode failed: Invalid credential",
        "munge.credential_rejected",
        {"reason": "Invalid"},
    ),
    # a KubeVirt incident note, an EC2 post-mortem and an Arch user's journal (found through the
    # code index); logind's reboot notice as reboot-cause tools' tests quote it
    (
        "Jan 27 15:45:49 vm02 systemd-logind[964]: Power key pressed.",
        "logind.shutdown_requested",
        {},
    ),
    (
        "Apr 17 07:55:31 ip-10-0-0-10.ec2.internal systemd-logind[1407]: Power key pressed short.",
        "logind.shutdown_requested",
        {},
    ),
    (
        "Jun 23 04:41:57 arch systemd-logind[587]: System is powering down.",
        "logind.shutdown_requested",
        {"action": "powering down"},
    ),
    (
        "systemd-logind[1]: System is rebooting.",
        "logind.shutdown_requested",
        {"action": "rebooting"},
    ),
    # a ROCm user's, an Arch user's and an OpenShift node's journals (found through the code index)
    (
        "Jan 09 18:55:45 alexpc systemd-coredump[134090]: Process 91762 (python) of user 60105 "
        "terminated abnormally with signal 6/ABRT, processing...",
        "coredump.process_crashed",
        {"comm": "python", "signal": "6/ABRT"},
    ),
    (
        "Jun 29 19:28:18 archlinux systemd-coredump[173477]: Process 173372 (python) of user 1000 "
        "terminated abnormally with signal 4/ILL",
        "coredump.process_crashed",
        {"pid": "173372", "signal": "4/ILL"},
    ),
    (
        "May 14 03:49:07 crc-9ltqk-master-0 systemd-coredump[237790]: Process 236798 (mt-sigsegv) "
        "of user 1000660000 dumped core.",
        "coredump.process_crashed",
        {"comm": "mt-sigsegv", "uid": "1000660000"},
    ),
]

# (key, healthy or other look-alike line the key must not match)
NEGATIVE: list[tuple[str, str]] = [
    # a clean exit and a stop by SIGTERM are not failures
    (
        "systemd.node_service_failed",
        "systemd[1]: kubelet.service: Main process exited, code=exited, status=0/SUCCESS",
    ),
    (
        "systemd.node_service_killed",
        "systemd[1]: slurmd.service: Main process exited, code=killed, status=15/TERM",
    ),
    # a kill by a signal, an OOM kill and a watchdog are the other entries'
    (
        "systemd.node_service_failed",
        "systemd[1]: slurmd.service: Main process exited, code=killed, status=9/KILL",
    ),
    ("systemd.node_service_failed", "systemd[1]: slurmd.service: Failed with result 'oom-kill'."),
    ("systemd.node_service_failed", "systemd[1]: kubelet.service: Failed with result 'watchdog'."),
    # a unit that is not a node service (systemd/systemd pull request #20690's test unit), and the
    # NVIDIA services (signatures-nvsys.toml's)
    (
        "systemd.node_service_failed",
        "Sep 10 14:59:49 image systemd[1]: testsuite-55-testbloat.service: Failed with result "
        "'signal'.",
    ),
    (
        "systemd.node_service_failed",
        "systemd[1]: nvidia-fabricmanager.service: Control process exited, code=exited, "
        "status=1/FAILURE",
    ),
    (
        "systemd.node_service_failed",
        "Failed to start nvidia-persistenced.service - NVIDIA Persistence Daemon.",
    ),
    # a healthy journal: starts, deactivations
    ("systemd.node_service_failed", "systemd[1]: Started Slurm node daemon."),
    (
        "systemd.node_service_failed",
        "systemd[1]: systemd-tmpfiles-clean.service: Deactivated successfully.",
    ),
    # systemd/systemd issue #35270: oomd's candidate list is not a kill
    (
        "oomd.killed",
        "avril 16 21:08:50 systemd-oomd[93234]: Considered 97 cgroups for killing, top candidates "
        "were:",
    ),
    # nymea/nymea-networkmanager issue #42: the link coming up; BornToBeRoot/NETworkManager issue
    # #3369: an operator's disconnect
    (
        "netmgr.carrier_lost",
        "Dec 25 14:21:24 RPi-3 NetworkManager[356]: <info>  [1608898884.7301] device (eth0): state "
        "change: unavailable -> disconnected (reason 'carrier-changed', sys-iface-state: 'managed')",
    ),
    (
        "netmgr.carrier_lost",
        "2026-03-28T16:10:00+0800 localhost.localdomain NetworkManager[4654]: <info>  "
        "[1774685400.8463] device (ens1): state change: activated -> deactivating (reason "
        "'user-requested', sys-iface-state: 'managed')",
    ),
    # a container's veth losing its carrier (rendered; systemd/systemd issue #15445 shows such
    # veths gaining it) and systemd/systemd issue #28358 (the carrier coming back)
    ("networkd.carrier_lost", "[   26.257065] systemd-networkd[681]: veth7e084358: Lost carrier"),
    ("networkd.carrier_lost", "Jul 09 01:19:30 Mnemosyne systemd-networkd[1543]: enp1s0: Gained carrier"),
    # a Talos guide: a routine millisecond step; chrony's source selection
    ("chrony.clock_stepped", "System clock was stepped by 0.003421 seconds"),
    ("chrony.clock_stepped", "System clock wrong by 0.003421 seconds"),
    ("chrony.clock_stepped", "chronyd[1311]: Selected source 10.0.0.1 (ntp1.cluster.local)"),
    # mcelog's decode banner (andikleen/mcelog issue #90) is printed for corrected events too
    ("mcelog.page_threshold", "Hardware event. This is not a software error."),
    # coreos/fedora-coreos-tracker issue #1698: the capture kernel starting
    ("kdump.vmcore_saved", "[    4.614645] kdump[462]: Kdump is using the default log level(3)."),
    # nslcd's healthy start (a public install guide) and wrong credentials (rendered from
    # myldap.c: the site's configuration, left unread)
    ("nslcd.ldap_unreachable", "sept. 20 15:04:54 client nslcd[2676]: accepting connections"),
    # munge's own test of a good credential (rendered from unmunge's output)
    ("munge.credential_rejected", "STATUS:          Success (0)"),
    # a userspace daemon's own message (found through the code index), not logind's
    ("logind.shutdown_requested", "uconsole-powerd: power key pressed -> uconsole-sleep"),
    # systemd/systemd's "Started Process Core Dump" (an OpenShift node's journal) is no crash
    (
        "coredump.process_crashed",
        "May 14 03:49:06 crc-9ltqk-master-0 systemd[1]: Started Process Core Dump (PID 237789/UID 0).",
    ),
    (
        "nslcd.ldap_unreachable",
        "nslcd[2676]: [8b4567] <passwd=\"alice\"> failed to bind to LDAP server "
        "ldap://ldap.cluster.local/: Invalid credentials: Success",
    ),
]  # fmt: skip


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_healthy_node_os_lines_match_nothing_of_the_family() -> None:
    """Clean exits, stops, starts, links coming up and routine time keeping read as nothing of
    this family."""
    healthy = [
        "systemd[1]: kubelet.service: Main process exited, code=exited, status=0/SUCCESS",
        "systemd[1]: slurmd.service: Main process exited, code=killed, status=15/TERM",
        "systemd[1]: Started Slurm node daemon.",
        "systemd[1]: systemd-tmpfiles-clean.service: Deactivated successfully.",
        "Jul 09 01:19:30 Mnemosyne systemd-networkd[1543]: enp1s0: Gained carrier",
        "Dec 25 14:21:24 RPi-3 NetworkManager[356]: <info>  [1608898884.7272] device (eth0): "
        "carrier: link connected",
        "System clock was stepped by 0.003421 seconds",
        "chronyd[1311]: Selected source 10.0.0.1 (ntp1.cluster.local)",
        "Feb 06 09:33:42 hostname ptp4l[1052]: [740205.195] rms   10 max   24 freq   -217 +/-   0 "
        "delay   223 +/-   2",
        "[    4.614645] kdump[462]: Kdump is using the default log level(3).",
    ]
    for line in healthy:
        assert not set(hits(line)) & FAMILY, line


def test_node_services_name_no_node_alone() -> None:
    """A node service that failed is the node's to inspect, never the job's, but its install, its
    configuration or a controller down fail it too: below the naming threshold (60). Carrier
    losses and mcelog's retired pages only corroborate (monitor)."""
    failed = CATALOG.signatures["systemd.node_service_failed"]
    assert failed.blame is Blame.HARDWARE and 40 <= failed.weight < 60
    assert failed.node_action.value == "inspect"
    for key in ("netmgr.carrier_lost", "networkd.carrier_lost", "mcelog.page_threshold"):
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.HARDWARE and sig.weight <= 30, key
        assert sig.node_action.value == "monitor", key
    for key in sorted(FAMILY):
        assert CATALOG.signatures[key].weight < 60, key


def test_memory_kills_weigh_below_the_kernels_own_line() -> None:
    """systemd's and systemd-oomd's kills are the memory the node's work used (the application),
    weaker than the kernel's OOM killer line they echo or pre-empt."""
    kernel = CATALOG.signatures["kernel.oom_kill"]
    for key in ("systemd.unit_oom_killed", "oomd.killed"):
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.APPLICATION, key
        assert sig.weight < kernel.weight, key
        assert sig.node_action.value == "none", key


def test_restatements_act_on_no_node_and_stay_below_a_collective_complaint() -> None:
    """A killed service, a watchdog, a clock step, an unclean journal and a saved vmcore explain
    at most: symptoms under the weight (20) at which a symptom reads as a collective complaint,
    acting on no node."""
    for key in ("systemd.node_service_killed", "systemd.watchdog_timeout",
                "munge.credential_rejected", "coredump.process_crashed",
                "journald.unclean_shutdown", "chrony.clock_stepped", "ptp4l.clock_jump",
                "kdump.vmcore_saved"):  # fmt: skip
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.SYMPTOM, key
        assert sig.weight < 20, key
        assert sig.node_action.value == "none", key
