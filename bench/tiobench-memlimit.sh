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
# Then the sequential read alone, kura and fio on the same files, from the
# same page cache: each round evicts the files, lets fio's random write
# (tiotest's, unthrottled) leave its pages in the capped group, and reads
# either with those pages kept (as tiobench keeps them) or dropped first
# (as fio's default invalidate=1 does); printed with the device's average
# read size (/sys/block/DEV/stat), which says why.
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
# SUITE_ROUNDS=0 skips the whole suites and measures the read alone.
suite_rounds=${SUITE_ROUNDS:-$rounds}
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
for round in $(seq "$suite_rounds"); do
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
# The sequential read alone, on one set of files kura made (kura reads
# only files it made at the names it chooses).
files="$work/mnt/seq/t.dat"
mkdir "$work/mnt/seq"
"$kura" --db "$work/k.db" -q run --target "$files" --file-per-thread --threads "$threads" --rw write \
  --bs 1m --size "$size" --keep --end-fsync > /dev/null
evict() {
  python3 -c 'import os, sys
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)' "$files".*
}
# Runs "$@" inside the cgroups named in $1 (space-separated directories).
inside() {
  local groups=$1
  shift
  sh -c 'for g in $0; do echo $$ > "$g/cgroup.procs"; done; exec "$@"' "$groups" "$@"
}
# fio over the same files: t.dat.0, t.dat.1, ...
fio_seq=(--directory="$work/mnt/seq" --filename_format='t.dat.$jobnum' --bs=4k --size="$size"
  --numjobs="$threads" --invalidate=0)
random_write() {
  inside "$memcg" fio --name=rw "${fio_seq[@]}" --rw=randwrite --number_ios=$((random_ops / threads)) \
    --end_fsync=1 --output=/dev/null
}
read_kura() {
  inside "$blkio $memcg" "$kura" --db "$work/k.db" --json -q run --target "$files" --file-per-thread \
    --threads "$threads" --rw read --bs 4k --size "$size" --direct=0 --keep-cache --engine sync |
    jq '.jobs[0].read.bytes_per_sec / 1048576 | . * 10 | round / 10'
}
read_fio() {
  inside "$blkio $memcg" fio --name=r "${fio_seq[@]}" --rw=read --group_reporting --output-format=json |
    jq '.jobs[0].read.bw_bytes / 1048576 | . * 10 | round / 10'
}
dev=$(basename "$loop")
declare -A seq
printf '\nsequential read alone\tround\ttool\tMiB/s\tdevice reads\tKiB per read\n'
for round in $(seq "$rounds"); do
  for cache in kept dropped; do
    order=("${tools[@]}")
    (( round % 2 == 0 )) && order=(fio kura)
    for tool in "${order[@]}"; do
      evict
      random_write
      [ "$cache" = dropped ] && evict
      read -r r0 _ s0 _ < "/sys/block/$dev/stat"
      mibs=$("read_$tool")
      read -r r1 _ s1 _ < "/sys/block/$dev/stat"
      n=$((r1 - r0))
      seq[$cache,$tool,$round]=$mibs
      printf 'cache %s\t%s\t%s\t%s\t%s\t%s\n' "$cache" "$round" "$tool" "$mibs" "$n" $(( n > 0 ? (s1 - s0) / 2 / n : 0 ))
    done
  done
done
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
printf '\nmedian\tkura\tfio\tkura/fio\n'
names=("Sequential Write" "Random Write" "Sequential Read" "Random Read")
for i in $( ((suite_rounds > 0)) && echo 0 1 2 3); do
  k=$(for r in $(seq "$suite_rounds"); do cut -f$((i + 1)) <<< "${got[kura,$r]}"; done | median)
  f=$(for r in $(seq "$suite_rounds"); do cut -f$((i + 1)) <<< "${got[fio,$r]}"; done | median)
  ratio=$(for r in $(seq "$suite_rounds"); do
    paste <(cut -f$((i + 1)) <<< "${got[kura,$r]}") <(cut -f$((i + 1)) <<< "${got[fio,$r]}") | awk '{printf "%.3f\n", $1 / $2}'
  done | median)
  printf '%s\t%s\t%s\t%s\n' "${names[$i]}" "$k" "$f" "$ratio"
done
for cache in kept dropped; do
  k=$(for r in $(seq "$rounds"); do echo "${seq[$cache,kura,$r]}"; done | median)
  f=$(for r in $(seq "$rounds"); do echo "${seq[$cache,fio,$r]}"; done | median)
  ratio=$(for r in $(seq "$rounds"); do echo "${seq[$cache,kura,$r]} ${seq[$cache,fio,$r]}" | awk '{printf "%.3f\n", $1 / $2}'; done | median)
  printf 'Sequential Read alone, cache %s\t%s\t%s\t%s\n' "$cache" "$k" "$f" "$ratio"
done
