# aic_load.py OUT SYSTEM FRAMEWORK VERSION NCCL_VERSION — load an exported system with aiconfigurator-core's own loader
# (get_database, NCCL.load_data, CustomAllReduce.load_data): a system yaml (rtx_pro_6000_server's, data_dir and
# nccl_version pointed at the export) is written beside it; prints what the loader read, as JSON.
import os, sys, yaml, json
import aiconfigurator_core
from aiconfigurator_core.sdk.perf_database import get_database
from aiconfigurator_core.sdk.operations.communication import NCCL, CustomAllReduce
out, system, fw, ver, nver = sys.argv[1:6]
ref = os.path.join(os.path.dirname(aiconfigurator_core.__file__), "systems", "rtx_pro_6000_server.yaml")
spec = yaml.safe_load(open(ref))
spec["data_dir"] = "data/" + system
spec.setdefault("misc", {})["nccl_version"] = nver
yaml.safe_dump(spec, open(os.path.join(out, system + ".yaml"), "w"))
db = get_database(system, fw, ver, systems_paths=[out], allow_missing_data=True)
NCCL.load_data(db); CustomAllReduce.load_data(db)
res = {"nccl_file": db._nccl_data.filepath, "custom_file": db._custom_allreduce_data.filepath, "nccl": {}, "custom": {}}
for q, ops in db._nccl_data.items():
    for gpus, sizes in ops["all_reduce"].items():
        for ms, v in sizes.items(): res["nccl"]["%s/%d/%d" % (q.name, gpus, ms)] = v["latency"]
for q, g in db._custom_allreduce_data.items():
    for gpus, strat in g.items():
        for s, sizes in strat.items():
            for ms, v in sizes.items(): res["custom"]["%s/%d/%s/%d" % (q.name, gpus, s, ms)] = v["latency"]
print(json.dumps(res, sort_keys=True))
