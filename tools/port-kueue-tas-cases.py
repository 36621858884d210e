#!/usr/bin/env python3
"""Turn the tables of Kueue's TestFindTopologyAssignments into tidesim test data.

Kueue keeps its topology-aware scheduling cases as Go map literals in
pkg/cache/scheduler/tas_cache_test.go (TestFindTopologyAssignments, and
TestFindTopologyAssignmentsMultiLayerReplacement for node replacement). This script reads that
file, evaluates the subset of Go the table is written in (composite literals, the test
builders' method chains, the constants and node lists declared before the table) and writes
one YAML document per case, keyed by the upstream case name, for
tests/sim/admission/tas_kueue_cases_test.cpp. Quantities stay as Kubernetes writes them.

A case the script cannot evaluate (one built by a Go function literal, for instance) is
written with `not_converted: <why>` so the test lists it instead of dropping it silently.

Usage: port-kueue-tas-cases.py KUEUE_TEST_FILE OUT.yaml [--commit SHA]
"""
import argparse
import re
import sys

import yaml

CONSTANTS = {
    "corev1.LabelHostname": "kubernetes.io/hostname",
    "corev1.ResourceCPU": "cpu",
    "corev1.ResourceMemory": "memory",
    "corev1.ResourcePods": "pods",
    "corev1.TaintEffectNoSchedule": "NoSchedule",
    "corev1.TaintEffectNoExecute": "NoExecute",
    "corev1.TaintEffectPreferNoSchedule": "PreferNoSchedule",
    "corev1.TolerationOpEqual": "Equal",
    "corev1.TolerationOpExists": "Exists",
    "corev1.NodeSelectorOpIn": "In",
    "corev1.NodeSelectorOpNotIn": "NotIn",
    "corev1.NodeSelectorOpExists": "Exists",
    "corev1.NodeSelectorOpDoesNotExist": "DoesNotExist",
    "corev1.NodeNetworkUnavailable": "NetworkUnavailable",
    "corev1.NodeReady": "Ready",
    "corev1.ConditionTrue": "True",
    "corev1.ConditionFalse": "False",
    "corev1.PodRunning": "Running",
    "corev1.PodSucceeded": "Succeeded",
    "corev1.PodFailed": "Failed",
    "corev1.PodPending": "Pending",
    "podconstants.IsGroupWorkloadAnnotationKey": "kueue.x-k8s.io/is-group-workload",
    "podconstants.IsGroupWorkloadAnnotationValue": "true",
    "true": True,
    "false": False,
    "nil": None,
}

TOKEN = re.compile(
    r"""(?P<ws>\s+)|(?P<comment>//[^\n]*|/\*.*?\*/)|(?P<raw>`[^`]*`)|(?P<str>"(?:\\.|[^"\\])*")"""
    r"""|(?P<num>\d+)|(?P<id>[A-Za-z_][A-Za-z_0-9]*)|(?P<op>:=|\.\.\.|[{}()\[\],:.&*=;+-]|[^\s\w])""",
    re.S,
)


def tokenize(text):
    out, pos = [], 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise SyntaxError(f"cannot tokenize at {text[pos:pos + 40]!r}")
        pos = m.end()
        kind = m.lastgroup
        if kind in ("ws", "comment"):
            continue
        val = m.group()
        if kind == "raw":
            out.append(("str", val[1:-1]))
        elif kind == "str":
            out.append(("str", bytes(val[1:-1], "utf-8").decode("unicode_escape")))
        elif kind == "num":
            out.append(("num", int(val)))
        else:
            out.append((kind, val))
    return out


class Builder:
    """A test builder's object under construction (a node, pod, assignment...)."""

    def __init__(self, kind, data):
        self.kind, self.data = kind, data


class Unsupported(Exception):
    pass


class Spread(list):
    """The last argument of a variadic call written `xs...`."""


class Parser:
    def __init__(self, tokens, env):
        self.t, self.i, self.env = tokens, 0, env

    def peek(self, k=0):
        return self.t[self.i + k] if self.i + k < len(self.t) else ("eof", "")

    def take(self, val=None):
        tok = self.peek()
        if val is not None and tok[1] != val:
            raise SyntaxError(f"expected {val!r}, got {tok!r} near token {self.i}")
        self.i += 1
        return tok

    def skip_type(self):
        """Skips a Go type (`[]T`, `map[K]V`, `*T`, `pkg.T`, `struct{...}`)."""
        tok = self.peek()
        if tok[1] == "[":
            self.take("[")
            while self.peek()[1] != "]":
                self.take()
            self.take("]")
            return self.skip_type()
        if tok[1] == "*":
            self.take()
            return self.skip_type()
        if tok[1] == "map":
            self.take()
            self.take("[")
            self.skip_type()
            self.take("]")
            return self.skip_type()
        if tok[1] == "struct":
            self.take()
            depth = 0
            while True:
                v = self.take()[1]
                depth += v == "{"
                depth -= v == "}"
                if depth == 0:
                    return
        self.take()
        while self.peek()[1] == "." and self.peek(1)[0] == "id":
            self.take()
            self.take()

    def composite(self, type_name=None):
        self.take("{")
        keyed, items = None, []
        while self.peek()[1] != "}":
            if self.peek()[1] == "{":
                value = self.composite()
                key = None
            elif self.peek()[0] == "id" and self.peek(1)[1] == ":":
                # a field name, or a constant used as a map key
                name = self.take()[1]
                key = self.env.get(name, name)
                self.take(":")
                value = self.composite() if self.peek()[1] == "{" else self.expr()
            else:
                first = self.expr()
                if self.peek()[1] == ":":
                    self.take(":")
                    key = first
                    value = self.composite() if self.peek()[1] == "{" else self.expr()
                else:
                    key, value = None, first
            if keyed is None:
                keyed = key is not None
            items.append((key, value))
            if self.peek()[1] == ",":
                self.take(",")
        self.take("}")
        if keyed:
            return {k: v for k, v in items}
        return [v for _, v in items]

    def expr(self):
        value = self.unary()
        while self.peek()[1] in ("*", "+") and isinstance(value, int):
            op = self.take()[1]
            rhs = self.unary()
            value = value * rhs if op == "*" else value + rhs
        return value

    def unary(self):
        tok = self.peek()
        if tok[1] == "&" or (tok[1] == "*" and self.peek(1)[0] == "id"):
            self.take()
            return self.expr()
        if tok[1] == "-":
            self.take()
            return -self.expr()
        if tok[1] in ("[", "map") or tok[1] == "struct":
            self.skip_type()
            return self.postfix(self.composite())
        if tok[0] in ("str", "num"):
            self.take()
            return tok[1]
        if tok[1] == "func":
            raise Unsupported("built by Go code (ported by hand in tas_kueue_hand_cases_test.cpp)")
        if tok[0] == "id":
            return self.postfix(self.qualified())
        if tok[1] == "(":
            self.take("(")
            v = self.expr()
            self.take(")")
            return self.postfix(v)
        raise SyntaxError(f"unexpected {tok!r}")

    def qualified(self):
        name = self.take()[1]
        while self.peek()[1] == "." and self.peek(1)[0] == "id":
            nxt = self.peek(1)[1]
            if name in self.env or (name[0].islower() and self.peek(2)[1] == "(" and "." in name):
                break
            self.take(".")
            name += "." + self.take()[1]
            if self.peek()[1] == "(":
                break
        if self.peek()[1] == "(":
            self.take("(")
            args = []
            while self.peek()[1] != ")":
                args.append(self.expr())
                if self.peek()[1] == "...":  # spread: append(xs, ys...)
                    self.take()
                    args[-1] = Spread(args[-1])
                if self.peek()[1] == ",":
                    self.take(",")
            self.take(")")
            return call(name, args)
        if self.peek()[1] == "{" and (name[0].isupper() or "." in name):
            return self.composite(name)
        return lookup(name, self.env)

    def postfix(self, value):
        while self.peek()[1] == "." and self.peek(1)[0] == "id":
            self.take(".")
            method = self.take()[1]
            args = []
            if self.peek()[1] == "(":
                self.take("(")
                while self.peek()[1] != ")":
                    args.append(self.expr())
                    if self.peek()[1] == ",":
                        self.take(",")
                self.take(")")
            value = method_call(value, method, args)
        return value


def lookup(name, env):
    if name in env:
        return env[name]
    if name == "corev1.SchemeGroupVersion":
        return Builder("gv", {})
    if name in CONSTANTS:
        return CONSTANTS[name]
    if name.startswith("features."):
        return name.split(".", 1)[1]
    raise Unsupported(f"unknown name {name}")


def call(name, args):
    short = name.rsplit(".", 1)[-1]
    if name in ("int32", "int64", "string", "int"):
        return args[0]
    if short in ("V1Beta2From", "InternalFrom"):
        return args[0]
    if short in ("new", "To"):
        return args[0]
    if name == "append":
        out = list(args[0])
        for a in args[1:]:
            out.extend(a) if isinstance(a, Spread) else out.append(a)
        return out
    if short == "MustParse":
        return str(args[0])
    if short == "MakeNode":
        return Builder("node", {"name": args[0], "labels": {}, "allocatable": {}})
    if short == "MakePod":
        return Builder("pod", {"name": args[0], "requests": {}})
    if short == "MakeTopologyAssignment":
        return Builder("assignment", {"levels": list(args[0]), "domains": []})
    if short in ("MakePreferredSchedulingTerms", "MakeNodeSelectorTerms"):
        return Builder("terms", {"terms": []})
    if short in ("NewRequestsFromMap", "ResourceName", "TopologyDomainID", "PodSetReference"):
        return args[0]
    if short == "MakeWorkload":
        return Builder("workload", {"owners": [], "annotations": {}, "assignments": [],
                                    "unhealthy": []})
    if short == "MakeAdmission":
        return Builder("admission", {"podsets": []})
    if short == "MakePodSetAssignment":
        return Builder("psa", {"name": args[0]})
    raise Unsupported(f"unknown function {name}")


def method_call(obj, method, args):
    if not isinstance(obj, Builder):
        raise Unsupported(f"method {method} on {type(obj).__name__}")
    d = obj.data
    if obj.kind == "gv" and method == "WithKind":  # the core group's version "v1"
        return {"Kind": args[0], "Version": "v1"}
    # Obj() ends every builder; an assignment builder's field TopologyAssignment is the same.
    if method == "Obj" or (method == "TopologyAssignment" and obj.kind == "assignment"):
        if obj.kind == "admission":
            return d
        if obj.kind == "terms":
            return d["terms"]
        return d
    if obj.kind == "node":
        if method == "Label":
            d["labels"][args[0]] = args[1]
        elif method == "StatusAllocatable":
            d["allocatable"].update(args[0])
        elif method == "Ready":
            d["ready"] = True
        elif method == "NotReady":
            d["ready"] = False
        elif method == "Unschedulable":
            d["unschedulable"] = True
        elif method == "Taints":
            d.setdefault("taints", []).extend(
                {k.lower(): v for k, v in t.items()} for t in args)
        elif method == "StatusConditions":
            d.setdefault("conditions", []).extend(
                {k.lower(): v for k, v in c.items()} for c in args)
        else:
            raise Unsupported(f"node builder method {method}")
    elif obj.kind == "pod":
        if method == "NodeName":
            d["node"] = args[0]
        elif method == "Request":
            d["requests"][args[0]] = args[1]
        elif method == "StatusPhase":
            d["phase"] = args[0]
        else:
            raise Unsupported(f"pod builder method {method}")
    elif obj.kind == "assignment":
        if method == "Domain":
            d["domains"].append(args[0])
        else:
            raise Unsupported(f"assignment builder method {method}")
    elif obj.kind == "workload":
        if method == "OwnerReference":
            d["owners"].append(args[0])
        elif method == "Annotations":
            d["annotations"].update(args[0])
        elif method == "Admission":
            d["assignments"] = args[0]["podsets"]
        elif method == "UnhealthyNodes":
            d["unhealthy"].extend(args)
        else:
            raise Unsupported(f"workload builder method {method}")
    elif obj.kind == "admission":
        if method != "PodSets":
            raise Unsupported(f"admission builder method {method}")
        d["podsets"].extend(args)
    elif obj.kind == "psa":
        if method == "Count":
            d["count"] = args[0]
        elif method == "TopologyAssignment":
            d["assignment"] = args[0]
        else:
            raise Unsupported(f"podset assignment builder method {method}")
    elif obj.kind == "terms":
        if method != "Term":
            raise Unsupported(f"terms builder method {method}")
        if len(args) == 4:  # preferred: weight, key, op, values...
            d["terms"].append({"weight": args[0], "key": args[1], "operator": args[2],
                               "values": list(args[3:])})
        else:
            d["terms"].append({"key": args[0], "operator": args[1], "values": list(args[2:])})
    return obj


def function_body(text, test_name):
    start = text.index(f"func {test_name}(")
    brace = text.index("{", start)
    depth, i = 0, brace
    while True:
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[brace + 1:i]
        elif text[i] in "\"`":
            q = text[i]
            i += 1
            while text[i] != q:
                i += 2 if text[i] == "\\" and q == '"' else 1
        elif text.startswith("//", i):
            i = text.index("\n", i)
        i += 1


def read_environment(tokens, env):
    """Evaluates the const block and the `name := expr` lines before the table."""
    p = Parser(tokens, env)
    while p.i < len(tokens):
        tok = p.peek()
        if tok[1] == "const":
            p.take()
            p.take("(")
            while p.peek()[1] != ")":
                name = p.take()[1]
                p.take("=")
                env[name] = p.expr()
            p.take(")")
        elif tok[0] == "id" and p.peek(1)[1] == ":=":
            name = p.take()[1]
            p.take(":=")
            if name == "cases":
                return p
            env[name] = p.expr()
        else:
            raise SyntaxError(f"unexpected statement at {tok!r}")
    raise SyntaxError("no cases table")


def read_cases(p):
    p.skip_type()
    p.take("{")
    cases = []
    while p.peek()[1] != "}":
        name = p.take()[1]
        p.take(":")
        start = p.i
        try:
            body = p.composite()
            cases.append((name, body, None))
        except (Unsupported, SyntaxError) as e:
            p.i = start
            skip_braces(p)
            cases.append((name, None, str(e)))
        if p.peek()[1] == ",":
            p.take(",")
    return cases


def skip_braces(p):
    depth = 0
    while True:
        v = p.take()[1]
        depth += v == "{"
        depth -= v == "}"
        if depth == 0:
            return


def podset_out(ps):
    out = {"name": ps.get("podSetName", "")}
    tr = ps.get("topologyRequest")
    if tr is not None:
        out["topology_request"] = {
            {"Required": "required", "Preferred": "preferred", "Unconstrained": "unconstrained",
             "PodSetSliceRequiredTopology": "slice_topology", "PodSetSliceSize": "slice_size",
             "PodsetSliceRequiredTopologyConstraints": "slice_constraints",
             "PodSetGroupName": "group"}[k]: v for k, v in tr.items()}
        for c in out["topology_request"].get("slice_constraints", []):
            c["topology"] = c.pop("Topology")
            c["size"] = c.pop("Size")
    out["count"] = ps.get("count", 0)
    out["requests"] = ps.get("requests", {})
    for src, dst in (("tolerations", "tolerations"), ("nodeSelector", "node_selector"),
                     ("podSetGroupName", "group")):
        if ps.get(src) is not None:
            val = ps[src]
            if src == "tolerations":
                val = [{k.lower(): v for k, v in t.items()} for t in val]
            out[dst] = val
    if ps.get("nodeAffinity") is not None:
        aff = ps["nodeAffinity"]
        out["node_affinity"] = {}
        if "RequiredDuringSchedulingIgnoredDuringExecution" in aff:
            out["node_affinity"]["required"] = aff[
                "RequiredDuringSchedulingIgnoredDuringExecution"]["NodeSelectorTerms"]
        if "PreferredDuringSchedulingIgnoredDuringExecution" in aff:
            out["node_affinity"]["preferred"] = aff[
                "PreferredDuringSchedulingIgnoredDuringExecution"]
    if ps.get("previousAssignment") is not None:
        prev = ps["previousAssignment"]
        out["previous_assignment"] = {
            "levels": prev.get("Levels", prev.get("levels")),
            "domains": [{"values": d["Values"], "count": d["Count"]}
                        for d in prev.get("Domains", prev.get("domains", []))]}
    want = ps.get("wantAssignment")
    if want is not None:
        out["want"] = {"levels": want.get("levels", want.get("Levels")),
                       "domains": [{"values": d["Values"], "count": d["Count"]}
                                   for d in want.get("domains", want.get("Domains", []))]}
    if ps.get("wantReason"):
        out["want_reason"] = ps["wantReason"]
    return out


def replacement_out(wl):
    """An admitted Workload with an unhealthy node (Kueue's node replacement)."""
    owners = wl["owners"]
    single_pod = (len(owners) == 1 and owners[0].get("Kind") == "Pod"
                  and owners[0].get("Version") == "v1"
                  and wl["annotations"].get("kueue.x-k8s.io/is-group-workload") != "true")
    return {"unhealthy_node": wl["unhealthy"][0],
            "owned_by_single_pod": single_pod,
            "assignments": [{"podset": a["name"], "levels": a["assignment"]["levels"],
                             "domains": [{"values": d["Values"], "count": d["Count"]}
                                         for d in a["assignment"]["domains"]]}
                            for a in wl["assignments"]]}


def case_out(name, body, source):
    out = {"name": name, "source": source}
    try:
        if body.get("aggregatedDomainUsages"):
            raise Unsupported("aggregatedDomainUsages (state of other flavors)")
        if body.get("workload"):
            out["replacement"] = replacement_out(body["workload"])
        # Usage of admitted TAS workloads (of this flavor, or of a flavor sharing its nodes).
        usage = (body.get("priorOwnUsage") or []) + (body.get("priorFlavorUsage") or [])
        if body.get("featureGates"):
            out["feature_gates"] = body["featureGates"]
        out["levels"] = body["levels"]
        if body.get("nodeLabels"):
            out["node_labels"] = body["nodeLabels"]
        out["nodes"] = body.get("nodes", [])
        if body.get("pods"):
            out["pods"] = body["pods"]
        if usage:
            out["tas_usage"] = [{"values": u["Values"], "requests": u["SinglePodRequests"],
                                 "count": u["Count"]} for u in usage]
        out["podsets"] = [podset_out(ps) for ps in body["podSets"]]
    except Unsupported as e:
        return {"name": name, "source": source, "not_converted": str(e)}
    return out


class NoAliases(yaml.SafeDumper):
    """Writes shared lists (a table's level constants) in full at each use."""

    def ignore_aliases(self, data):
        return True


def multilayer_replacement_body(body, env):
    """A case of TestFindTopologyAssignmentsMultiLayerReplacement in the main table's form: one
    PodSet "main" of 1-CPU pods whose admitted assignment loses `unhealthyNode`."""
    want = body.get("wantAssignment")
    return {
        "featureGates": {"TASMultiLayerTopology": True, **(body.get("featureGates") or {})},
        "levels": body.get("levels") or env["defaultLevels"],
        "nodes": body.get("nodes", []),
        "pods": body.get("pods"),
        "priorFlavorUsage": body.get("priorFlavorUsage"),
        "aggregatedDomainUsages": body.get("aggregatedDomainUsages"),
        "workload": {"owners": [], "annotations": {}, "unhealthy": [body["unhealthyNode"]],
                     "assignments": [{"name": "main", "count": body.get("admissionCount"),
                                      "assignment": body["existingTA"]}]},
        "podSets": [{"podSetName": "main", "topologyRequest": body.get("topologyRequest"),
                     "requests": {"cpu": 1000}, "count": body.get("count", 0),
                     "wantAssignment": want, "wantReason": body.get("wantReason")}],
    }


def convert(text, test_name, source, to_body=None):
    env = {}
    p = read_environment(tokenize(function_body(text, test_name)), env)
    docs = []
    for name, case, why in read_cases(p):
        if why:
            docs.append({"name": name, "source": source, "not_converted": why})
            continue
        try:
            body = to_body(case, env) if to_body else case
        except (KeyError, Unsupported) as e:
            docs.append({"name": name, "source": source, "not_converted": str(e)})
            continue
        docs.append(case_out(name, body, source))
    return docs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("test_file")
    ap.add_argument("out")
    ap.add_argument("--commit", default="")
    args = ap.parse_args()
    text = open(args.test_file, encoding="utf-8").read()
    at = " @" + args.commit if args.commit else ""
    base = "kubernetes-sigs/kueue pkg/cache/scheduler/tas_cache_test.go "
    docs = convert(text, "TestFindTopologyAssignments", base + "TestFindTopologyAssignments" + at)
    docs += convert(text, "TestFindTopologyAssignmentsMultiLayerReplacement",
                    base + "TestFindTopologyAssignmentsMultiLayerReplacement" + at,
                    multilayer_replacement_body)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("# Kueue's TestFindTopologyAssignments cases, one document each, written by\n"
                "# tools/port-kueue-tas-cases.py from the upstream test file named in `source`.\n")
        yaml.dump_all(docs, f, Dumper=NoAliases, sort_keys=False, width=100,
                      explicit_start=True)
    bad = sum(1 for d in docs if "not_converted" in d)
    print(f"{len(docs)} cases, {len(docs) - bad} converted, {bad} not", file=sys.stderr)


if __name__ == "__main__":
    main()
