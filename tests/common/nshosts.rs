//! Hosts on this machine for tests of many ranks (tests/cluster*.rs):
//! network namespaces with their own hostname, sshd and sshfs mount of one
//! NAS, reached by mpirun over ssh. Each is removed by its own name on drop.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use super::sh;

/// Hosts on this machine: a network namespace each (on one bridge, in
/// its own subnet), each with its own hostname (a UTS namespace), its
/// own mount namespace and its own sshd, which mpirun reaches with a key
/// made for the test. The NAS is one more namespace whose sshd serves a
/// directory of this host over SFTP; each host mounts it with sshfs at
/// `nas()` in its own mount namespace before its sshd starts, so every
/// rank sees its own host's mount of the one export. Everything is
/// removed by its own name on drop: the sshfs mounts (unmounted in each
/// host's namespace, then their sshfs ended by the pid it left), the
/// sshds by the pids they wrote, the namespaces, the bridge.
pub struct NsHosts {
    prefix: String,
    subnet: String,
    hosts: usize,
    dir: tempfile::TempDir,
}

impl NsHosts {
    pub fn new(hosts: usize, export: &Path) -> NsHosts {
        // Tests of one binary run at once: each set is named by the
        // process and its own number, so none makes or removes another's.
        static SETS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = SETS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let id = std::process::id();
        let set = NsHosts {
            prefix: format!("km{}x{}", id % 100_000, n % 10),
            subnet: format!("10.77.{}", (id + n * 97) % 250),
            hosts,
            dir: tempfile::tempdir().unwrap(),
        };
        let (p, d, net) = (&set.prefix, set.dir.path().display().to_string(), &set.subnet);
        std::fs::create_dir(set.nas()).unwrap();
        sh(&format!(
            "mkdir -p /run/sshd && ssh-keygen -q -t ed25519 -N '' -f {d}/id && \
             ssh-keygen -q -t ed25519 -N '' -f {d}/hostkey && cp {d}/id.pub {d}/authorized_keys && \
             ip link add {p}br type bridge && ip addr add {net}.254/24 dev {p}br && ip link set {p}br up"
        ));
        // The NAS: a network of its own, this host's files, an SFTP server.
        set.sshd_conf("nas", "100", "Subsystem sftp internal-sftp\n");
        sh(&format!(
            "{} && ip netns exec {p}nas /usr/sbin/sshd -f {d}/sshdnas.conf",
            set.link("nas", "n", "100")
        ));
        set.wait_for("sshdnas.pid");
        let nas = set.nas().display().to_string();
        for i in 0..hosts {
            set.sshd_conf(&i.to_string(), &(i + 1).to_string(), "");
            // sshfs in the foreground, in the background of the shell that
            // becomes the host's sshd: its pid is known, and the host's
            // sshd starts only once the NAS is mounted.
            let mount = format!(
                "sshfs -f root@{net}.100:{} {nas} -o IdentityFile={d}/id -o BatchMode=yes \
                 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
                 </dev/null >{d}/sshfs{i}.log 2>&1 & echo $! >{d}/sshfs{i}.pid; n=0; \
                 until mountpoint -q {nas}; do n=$((n+1)); \
                 if [ $n -gt 600 ]; then cat {d}/sshfs{i}.log >&2; exit 1; fi; sleep 0.1; done",
                export.display()
            );
            sh(&format!(
                "{} && ip netns exec {p}ns{i} unshare --uts --mount sh -c \
                 'hostname node{i}; {mount}; exec /usr/sbin/sshd -f {d}/sshd{i}.conf'",
                set.link(&format!("ns{i}"), &i.to_string(), &(i + 1).to_string())
            ));
            set.wait_for(&format!("sshd{i}.pid"));
        }
        set
    }

    /// Where each host mounts the NAS (an empty directory on this host).
    pub fn nas(&self) -> PathBuf {
        self.dir.path().join("nas")
    }

    /// Namespace `PREFIX{ns}` with address `.{host}` on the bridge.
    fn link(&self, ns: &str, veth: &str, host: &str) -> String {
        let (p, net) = (&self.prefix, &self.subnet);
        format!(
            "ip netns add {p}{ns} && ip link add {p}v{veth} type veth peer name {p}p{veth} && \
             ip link set {p}p{veth} netns {p}{ns} && ip link set {p}v{veth} master {p}br up && \
             ip netns exec {p}{ns} ip addr add {net}.{host}/24 dev {p}p{veth} && \
             ip netns exec {p}{ns} ip link set {p}p{veth} up && ip netns exec {p}{ns} ip link set lo up"
        )
    }

    fn sshd_conf(&self, name: &str, host: &str, more: &str) {
        let d = self.dir.path().display();
        std::fs::write(
            self.dir.path().join(format!("sshd{name}.conf")),
            format!(
                "Port 22\nListenAddress {}.{host}\nHostKey {d}/hostkey\nPermitRootLogin yes\n\
                 AuthorizedKeysFile {d}/authorized_keys\nPidFile {d}/sshd{name}.pid\nUsePAM no\n\
                 StrictModes no\n{more}",
                self.subnet
            ),
        )
        .unwrap();
    }

    /// sshd writes its pid file once it listens; a loaded machine may take a while.
    fn wait_for(&self, file: &str) {
        let path = self.dir.path().join(file);
        for _ in 0..600 {
            if std::fs::read_to_string(&path).is_ok_and(|s| !s.trim().is_empty()) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("{} did not appear in 60 s", path.display());
    }

    /// Runs `script` in host `i`'s mount namespace (its mount of the NAS):
    /// what a process on that host sees and does. Its stdout; panics on failure.
    pub fn on_host(&self, i: usize, script: &str) -> String {
        let sshd = self.pid(&format!("sshd{i}.pid")).expect("the host's sshd is up");
        let out = Command::new("nsenter")
            .args(["-t", &sshd, "-m", "sh", "-c", script])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "node{i}: {script}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn pid(&self, file: &str) -> Option<String> {
        let pid = std::fs::read_to_string(self.dir.path().join(file)).ok()?;
        let pid = pid.trim();
        (!pid.is_empty()).then(|| pid.to_string())
    }

    fn hostfile(&self, slots: u32) -> PathBuf {
        let path = self.dir.path().join("hosts");
        let text: String = (0..self.hosts)
            .map(|i| format!("{}.{} slots={slots}\n", self.subnet, i + 1))
            .collect();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// mpirun reaching the hosts over ssh, MPI's TCP kept to their subnet.
    pub fn mpirun(&self, slots: u32) -> Command {
        let mut c = Command::new("mpirun");
        c.args(["--allow-run-as-root", "--oversubscribe"]);
        let net = format!("{}.0/24", self.subnet);
        let agent = format!(
            "ssh -i {}/id -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes \
             -o LogLevel=ERROR -o ConnectTimeout=60",
            self.dir.path().display()
        );
        c.arg("--hostfile").arg(self.hostfile(slots));
        c.args(["--mca", "plm_rsh_agent", &agent]);
        c.args(["--mca", "oob_tcp_if_include", &net, "--mca", "btl", "self,tcp"]);
        c.args(["--mca", "btl_tcp_if_include", &net]);
        c
    }
}

impl Drop for NsHosts {
    fn drop(&mut self) {
        let p = &self.prefix;
        let kill = |pid: Option<String>| {
            if let Some(pid) = pid {
                let _ = Command::new("kill").arg(pid).status();
            }
        };
        for i in 0..self.hosts {
            // The host's mount of the NAS, in the host's own mount namespace.
            if let Some(sshd) = self.pid(&format!("sshd{i}.pid")) {
                let _ = Command::new("nsenter")
                    .args(["-t", &sshd, "-m", "umount", "-l"])
                    .arg(self.nas())
                    .status();
            }
            kill(self.pid(&format!("sshfs{i}.pid")));
            kill(self.pid(&format!("sshd{i}.pid")));
            let _ = Command::new("ip")
                .args(["netns", "del", &format!("{p}ns{i}")])
                .status();
        }
        kill(self.pid("sshdnas.pid"));
        let _ = Command::new("ip")
            .args(["netns", "del", &format!("{p}nas")])
            .status();
        let _ = Command::new("ip")
            .args(["link", "del", &format!("{p}br")])
            .status();
    }
}
