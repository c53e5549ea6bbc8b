#!/usr/bin/env bash
# What this machine charges for memory touched the first time: 256 MiB of new anonymous memory
# written a byte per 4 KiB page, as 4 KiB pages and (MADV_HUGEPAGE) as 2 MiB ones, three times
# each, then once each after 10 s idle; each time the same memory written again. emsim's figures that grow a world (a restart, a
# fixture's load, a soak) move with it: on our benchmark VM a first touch has cost 1.5-2.5 us in
# some sessions and 13-18 us in others. Usage: bash bench/first-touch.sh (~25 s)
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/touch.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
static double Now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char** argv) {
  const size_t n = (size_t)256 << 20;
  const int huge = argc > 1;
  char* p = mmap(0, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 1;
  if (huge) madvise(p, n, MADV_HUGEPAGE);
  double a = Now();
  for (size_t i = 0; i < n; i += 4096) p[i] = 1;
  double b = Now();
  memset(p, 2, n);
  double c = Now();
  printf("%-14s first touch %.3f s (%.2f us per 4 KiB), written again %.3f s\n", huge ? "2 MiB pages:" : "4 KiB pages:",
         b - a, (b - a) * 1e6 / (n / 4096), c - b);
  return 0;
}
C
cc -O2 -o "$work/touch" "$work/touch.c"
echo "256 MiB of new memory, $(nproc) CPUs, $(uname -r); THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo n/a)"
for _ in 1 2 3; do "$work/touch"; "$work/touch" huge; done
# Memory freed a while ago costs the first-touch price again on a VM whose balloon device reports
# free pages to the host (virtio-balloon's free page reporting, feature bit 5: the guest hands
# back free 2 MiB blocks a few seconds after they are freed, and the host must back them again).
# Measured on our VM (2026-12-02): 2 MiB pages 0.7 us per 4 KiB right after the last run, 10-13
# us after 6-15 s idle; 4 KiB pages 2-3 us (the guest reuses small free pages it has not
# reported). A world that grows on huge pages pays the second price.
reporting=n/a
for f in /sys/bus/virtio/devices/*/features; do
  [ "$(basename "$(readlink -f "$(dirname "$f")/driver")")" = virtio_balloon ] || continue
  features=$(cat "$f")
  if [ "${features:5:1}" = 1 ]; then reporting=yes; else reporting=no; fi
done
echo "after 10 s idle (the balloon's free page reporting: $reporting):"
sleep 10
"$work/touch" huge
sleep 10
"$work/touch"
