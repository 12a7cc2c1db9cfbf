"""Writes the seed corpora of the fuzzers from the tests' kernels.

    python tests/fuzz/seed_corpus.py

tests/fuzz/corpus/compile/ (fuzz_compile.cpp): every kernel of
tests/cpp/data/kernels with its `# signature:` lines, preceded by the device
functions it may call (parts split by `#---`), and every @simt.kernel /
@cuda.jit / @simt.func function of tests/python, alone. fuzz_kernels.py uses
the same files. Run again after adding kernels to the tests; the fuzzers add
what they find interesting to a corpus directory of their own.
"""

import ast
import hashlib
import pathlib
import re
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fuzz" / "corpus" / "compile"
KERNEL_DECORATORS = re.compile(r"^\s*@(simt\.kernel|simt\.func|cuda\.jit|kernel|func)\b")


def device_functions_in_call_order(folder):
    texts = {p.stem: p.read_text() for p in sorted(folder.glob("*.py"))}
    ordered = []

    def visit(name):
        if name in ordered:
            return
        for line in texts[name].splitlines():
            if line.startswith("# calls:"):
                for callee in line[len("# calls:"):].split(","):
                    visit(callee.strip())
        ordered.append(name)

    for name in texts:
        visit(name)
    return [texts[name] for name in ordered]


def cpp_corpus_seeds():
    folder = ROOT / "tests" / "cpp" / "data" / "kernels"
    functions = device_functions_in_call_order(folder / "functions")
    for path in sorted(folder.glob("*.py")):
        text = path.read_text()
        yield f"cpp_{path.stem}", text
        if any(f"{f.split('def ')[1].split('(')[0]}(" in text for f in functions):
            yield f"cpp_{path.stem}_with_functions", "#---\n".join(functions + [text])


def python_test_seeds():
    for path in sorted((ROOT / "tests" / "python").glob("test_*.py")):
        source = path.read_text()
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.FunctionDef) or not node.decorator_list:
                continue
            first = node.decorator_list[0].lineno
            lines = source.splitlines()[first - 1 : node.end_lineno]
            if not KERNEL_DECORATORS.match(lines[0]):
                continue
            yield f"py_{path.stem[5:]}_{node.name}", textwrap.dedent("\n".join(lines)) + "\n"


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.iterdir():
        old.unlink()
    seen = set()
    for name, text in [*cpp_corpus_seeds(), *python_test_seeds()]:
        digest = hashlib.sha1(text.encode()).hexdigest()
        if digest in seen or len(text) > 4096:
            continue
        seen.add(digest)
        (OUT / f"{name}.py").write_text(text)
    print(f"{len(seen)} seeds in {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
