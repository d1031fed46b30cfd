#!/usr/bin/env python3
# big_topo.py — writes an hwloc 2 XML of a synthetic box with N NVIDIA GPUs (8 behind each PCIe Gen5 switch,
# one switch per root port and PCI domain, the roots split over 2 sockets): the model's scaling test input.
# usage: big_topo.py N [OUT] [--slow-last]  (--slow-last: the last switch of socket 0 has a Gen3 x16 uplink)
import sys

def main():
    args = [a for a in sys.argv[1:] if a != "--slow-last"]
    slow_last = "--slow-last" in sys.argv
    n = int(args[0])
    out = open(args[1], "w") if len(args) > 1 else sys.stdout
    per_switch, gp = 8, [0]
    def g():
        gp[0] += 1
        return gp[0]
    nsw = (n + per_switch - 1) // per_switch
    w = out.write
    w('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n<topology version="2.0">\n')
    w(f'  <object type="Machine" os_index="0" cpuset="0x000000ff" complete_cpuset="0x000000ff" nodeset="0x00000003" '
      f'complete_nodeset="0x00000003" allowed_cpuset="0x000000ff" allowed_nodeset="0x00000003" gp_index="{g()}">\n')
    gpu = 0
    for pkg in range(2):
        cpus = "0x0000000f" if pkg == 0 else "0x000000f0"
        node = "0x00000001" if pkg == 0 else "0x00000002"
        w(f'    <object type="Package" os_index="{pkg}" cpuset="{cpus}" complete_cpuset="{cpus}" nodeset="{node}" '
          f'complete_nodeset="{node}" gp_index="{g()}">\n')
        w(f'      <object type="NUMANode" os_index="{pkg}" cpuset="{cpus}" complete_cpuset="{cpus}" nodeset="{node}" '
          f'complete_nodeset="{node}" gp_index="{g()}" local_memory="274877906944"/>\n')
        for c in range(4):
            pu = pkg * 4 + c
            m = "0x%08x" % (1 << pu)
            w(f'      <object type="Core" os_index="{pu}" cpuset="{m}" complete_cpuset="{m}" nodeset="{node}" '
              f'complete_nodeset="{node}" gp_index="{g()}">\n')
            w(f'        <object type="PU" os_index="{pu}" cpuset="{m}" complete_cpuset="{m}" nodeset="{node}" '
              f'complete_nodeset="{node}" gp_index="{g()}"/>\n      </object>\n')
        for sw in range(pkg * nsw // 2, (pkg + 1) * nsw // 2):
            dom = "%04x" % sw
            k = min(per_switch, n - gpu)
            speed = 'pci_link_speed="63.015384"'
            up = 'pci_link_speed="15.753846"' if slow_last and sw == nsw // 2 - 1 else speed
            w(f'      <object type="Bridge" gp_index="{g()}" bridge_type="0-1" depth="0" bridge_pci="{dom}:[10-2f]">\n')
            w(f'        <object type="Bridge" gp_index="{g()}" bridge_type="1-1" depth="1" bridge_pci="{dom}:[11-2f]" '
              f'pci_busid="{dom}:10:01.0" pci_type="0604 [8086:352a] [8086:352a] 00" {up}>\n')
            w(f'          <object type="Bridge" gp_index="{g()}" bridge_type="1-1" depth="2" bridge_pci="{dom}:[12-2f]" '
              f'pci_busid="{dom}:11:00.0" pci_type="0604 [1000:c030] [1000:c030] 00" {up}>\n')
            for i in range(k):
                bus = "%02x" % (0x13 + i)
                w(f'            <object type="Bridge" gp_index="{g()}" bridge_type="1-1" depth="3" '
                  f'bridge_pci="{dom}:[{bus}-{bus}]" pci_busid="{dom}:12:{i:02x}.0" '
                  f'pci_type="0604 [1000:c030] [1000:c030] 00" {speed}>\n')
                w(f'              <object type="PCIDev" gp_index="{g()}" pci_busid="{dom}:{bus}:00.0" '
                  f'pci_type="0302 [10de:2bb1] [10de:204b] a1" {speed}/>\n            </object>\n')
                gpu += 1
            w('          </object>\n        </object>\n      </object>\n')
        w('    </object>\n')
    w('  </object>\n</topology>\n')
    assert gpu == n, (gpu, n)

main()
