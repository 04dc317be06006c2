"""Op-support refusals: a runtime message that says the model needs an op this runtime lacks, named in one line.

Owns: reading the runtimes' own words for "this build has no such op" — LiteRT/TFLite's Select TF (Flex) ops
("Select TensorFlow op(s) ... Node number N (FlexAddV2) failed to prepare") and unresolved custom ops
("Encountered unresolved custom op: X"); onnxruntime's NOT_IMPLEMENTED ("Could not find an implementation for
Tan(7) node ...") and ops of an unregistered domain ("com.example:MyOp(-1) is not a registered function/op")
— and the sentence that names the op and what would run it (a runtime built with Flex, a delegate or
custom-op library, a provider or onnxruntime build with the kernel). `op_refusal` returns (message, hint) or
None: the backends raise it as a load failure, never as "the model rejected these inputs" (which stays for
errors that depend on the values fed). The host's conversion checks (edgeprof/export) word their refusals with it.
Does not own: raising (the backends), the error kinds (vocab.ErrorKind).
Python 3.6, standard library only.
"""

import re

_FLEX = re.compile(r"\((Flex\w+)\)")
_CUSTOM = re.compile(r"unresolved custom op: ([\w.\-/]+?)\.?(?:\s|$)")
_ORT_KERNEL = re.compile(r"Could not find an implementation for (\w+)\((\d+)\) node with name '([^']*)'")
_ORT_DOMAIN = re.compile(r"([\w.]+):(\w+)\((-?\d+)\) is not a registered function/op")


def _tflite(text, runtime):
    if "Select TensorFlow op" in text or "Flex delegate" in text:
        ops = sorted(set(_FLEX.findall(text)))
        named = ", ".join("%s (TensorFlow op %s)" % (op, op[4:]) for op in ops) or "Select TF ops"
        return ("the model needs Select TensorFlow (Flex) op(s) %s, which %s does not include" % (named, runtime),
                "run it on a TFLite build linked with the Flex delegate (TensorFlow's tf.lite.Interpreter, or "
                "tensorflow-lite-select-tf-ops on Android), or convert the model without SELECT_TF_OPS")
    m = _CUSTOM.search(text)
    if m:
        return ("the model needs custom op %s, which %s does not have registered" % (m.group(1), runtime),
                "load the library that provides it (a delegate .so with --delegate, or a runtime built with the op), "
                "or convert the model without the custom op")
    return None


def _onnxruntime(text, runtime):
    m = _ORT_KERNEL.search(text)
    if m:
        op, version, node = m.groups()
        where = " (node %r)" % node if node else ""
        return ("%s has no kernel for op %s (opset %s)%s with these input types on the providers in use (NOT_"
                "IMPLEMENTED)" % (runtime, op, version, where),
                "the op exists but not for this type here: another --precision, an onnxruntime build or "
                "--providers with that kernel, or re-export the model without it")
    m = _ORT_DOMAIN.search(text)
    if m:
        domain, op = m.group(1), m.group(2)
        return ("the model uses op %s of domain %s, which %s does not know (a custom op)" % (op, domain, runtime),
                "register the custom-op library that implements %s:%s (SessionOptions.register_custom_ops_library), "
                "use an onnxruntime build that has it, or re-export the model with standard ops" % (domain, op))
    return None


def op_refusal(runtime, version, text):
    """(message, hint) when `text` (a runtime's error) says the model needs an op `runtime` lacks, else None.
    `runtime`: "tflite" (LiteRT / tflite_runtime) or "onnxruntime"; `version`: its version, named in the line."""
    text = " ".join(str(text).split())
    if runtime == "onnxruntime":
        return _onnxruntime(text, "onnxruntime %s" % version if version else "onnxruntime")
    return _tflite(text, "this LiteRT interpreter (%s)" % version if version else "this LiteRT interpreter")
