#!/usr/bin/env bash
# `kura suite tiobench --mem-limit` against fio running tiotest's four tests
# the same way (bench/vs-fio-tiobench's job file), on one throttled disk:
# ext4 on a loop device whose reads and writes a cgroup v1 blkio group
# throttles (MiB/s and IOPS, as a small cloud disk), each tool inside that
# group, fio also inside a memory group of the same cap. Rounds rotate the
# order (kura, fio; fio, kura; ...) on fresh files, so both see the same
# machine. Printed: per round and tool the four tests' MiB/s, then the
# medians and the median kura/fio ratio of each test (issue 35: sequential
# read at 16-25 MiB/s where fio read 60).
# Needs root, cgroup v1 blkio and memory, losetup, mkfs.ext4, fio and jq.
#   bench/tiobench-memlimit.sh [KURA] [ROUNDS] [THREADS] [SIZE] [RANDOM_OPS] [MEM] [MBPS] [IOPS]
set -euo pipefail
kura=${1:-target/release/kura}
rounds=${2:-3}
threads=${3:-2}
size=${4:-128m}
random_ops=${5:-4000}
mem=${6:-64m}
mbps=${7:-60}
iops=${8:-150}
work=$(mktemp -d /var/tmp/kura-tiomem.XXXXXX)
loop=""
blkio=/sys/fs/cgroup/blkio/kura-tiomem-$$
memcg=/sys/fs/cgroup/memory/kura-tiomem-$$
cleanup() {
  mountpoint -q "$work/mnt" && umount -l "$work/mnt"
  [ -n "$loop" ] && losetup -d "$loop"
  [ -d "$blkio" ] && rmdir "$blkio"
  [ -d "$memcg" ] && rmdir "$memcg"
  rm -rf "$work"
}
trap cleanup EXIT
truncate -s 4G "$work/backing.img"
loop=$(losetup -f --show "$work/backing.img")
mkfs.ext4 -q -F "$loop"
mkdir "$work/mnt"
mount "$loop" "$work/mnt"
majmin=$(lsblk -dno MAJ:MIN "$loop" | tr -d ' ')
mkdir "$blkio" "$memcg"
for d in read write; do
  echo "$majmin $((mbps << 20))" > "$blkio/blkio.throttle.${d}_bps_device"
  echo "$majmin $iops" > "$blkio/blkio.throttle.${d}_iops_device"
done
bytes=$(numfmt --from=iec "${mem^^}")
echo "$bytes" > "$memcg/memory.limit_in_bytes"
# The files of one thread per test, as vs-fio-tiobench's fio job.
fio_job() {
  local where=$1
  printf '[global]\ndirectory=%s\nfilename_format=tio.$jobnum\nioengine=psync\nbs=4k\n' "$where"
  printf 'size=%s\nnumjobs=%s\ninvalidate=0\ngroup_reporting=1\n' "$size" "$threads"
  printf '[Sequential Write]\nrw=write\nstonewall\nend_fsync=1\n'
  printf '[Random Write]\nrw=randwrite\nstonewall\nend_fsync=1\nnumber_ios=%s\n' $((random_ops / threads))
  printf '[Sequential Read]\nrw=read\nstonewall\n'
  printf '[Random Read]\nrw=randread\nstonewall\nnumber_ios=%s\n' $((random_ops / threads))
}
# Four MiB/s figures, in TIOBENCH order, on one line.
run_kura() {
  local where=$1
  sh -c "echo \$\$ > $blkio/cgroup.procs && exec $kura --db $work/k.db --json -q suite tiobench $where \
    --threads $threads --size $size --random-ops $random_ops --mem-limit $mem" |
    jq -r '[.jobs[] | ((.write // .read).bytes_per_sec / 1048576)] | map(. * 10 | round / 10) | @tsv'
}
run_fio() {
  local where=$1
  fio_job "$where" > "$work/job.fio"
  sh -c "echo \$\$ > $blkio/cgroup.procs && echo \$\$ > $memcg/cgroup.procs && exec fio --output-format=json $work/job.fio" |
    jq -r '[.jobs[] | ((.write.bw_bytes + .read.bw_bytes) / 1048576)] | map(. * 10 | round / 10) | @tsv'
}
echo "$threads threads x $size, $random_ops random ops, --mem-limit $mem, disk $mbps MiB/s and $iops IOPS"
printf 'round\ttool\tseq write\trand write\tseq read\trand read\n'
declare -A got
tools=(kura fio)
for round in $(seq "$rounds"); do
  order=("${tools[@]}")
  (( round % 2 == 0 )) && order=(fio kura)
  for tool in "${order[@]}"; do
    where="$work/mnt/$tool-$round"
    mkdir "$where"
    sync
    line=$("run_$tool" "$where")
    rm -rf "$where"
    got[$tool,$round]=$line
    printf '%s\t%s\t%s\n' "$round" "$tool" "$line"
  done
done
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
printf '\nmedian\tkura\tfio\tkura/fio\n'
names=("Sequential Write" "Random Write" "Sequential Read" "Random Read")
for i in 0 1 2 3; do
  k=$(for r in $(seq "$rounds"); do cut -f$((i + 1)) <<< "${got[kura,$r]}"; done | median)
  f=$(for r in $(seq "$rounds"); do cut -f$((i + 1)) <<< "${got[fio,$r]}"; done | median)
  ratio=$(for r in $(seq "$rounds"); do
    paste <(cut -f$((i + 1)) <<< "${got[kura,$r]}") <(cut -f$((i + 1)) <<< "${got[fio,$r]}") | awk '{printf "%.3f\n", $1 / $2}'
  done | median)
  printf '%s\t%s\t%s\t%s\n' "${names[$i]}" "$k" "$f" "$ratio"
done
