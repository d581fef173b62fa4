"""Baseline purity: only the tiers above the baseline (avx2, avx512) of the extension contain AVX code.

Everything else in ``simdscan._core`` (the baseline kernels ``tier_baseline::``,
the executor, dispatch, the thread pool, the pybind11 glue, static
initialisers, library code instantiated in any translation unit) runs on every
x86-64 CPU, so it must not contain a single VEX/EVEX-encoded instruction: no
ymm/zmm register, no AVX-512 mask register, no mnemonic that exists only in
VEX/EVEX form.  (An inline function or template instantiated both in a tier's
translation unit, compiled with -mavx2/-mavx512f, and in a baseline one is
merged by the linker into one copy, possibly the AVX one; this test catches
that too.)

The disassembly comes from ``objdump -d --no-show-raw-insn -C`` (AT&T syntax,
demangled names); in that syntax every VEX/EVEX-encoded instruction's mnemonic
starts with "v" (vmovups, vaddps, vzeroupper, ...) and no legacy user-mode
one does.
"""

from __future__ import annotations

import platform
import re
import shutil
import subprocess
import sys
from collections import defaultdict

import pytest

import simdscan._core as core

X86_64 = platform.machine().lower() in ("x86_64", "amd64")

pytestmark = [
    pytest.mark.kernels,  # the compiler and the xsimd version decide what is inlined into the tiers
    pytest.mark.all_tiers,  # reads the built module, whichever tier runs
    pytest.mark.skipif(not X86_64, reason="ISA tiers exist only on x86-64 builds"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads GNU objdump's disassembly of an ELF module"),
]

# The tiers above the baseline, as the build compiled them (cmake/tiers.cmake): all AVX on x86-64, each in its
# namespace tier_<name> (the baseline's is tier_baseline).
ABOVE_BASELINE = core.compiled_isas()[1:]
AVX_TIERS = tuple(f"tier_{name}::" for name in ABOVE_BASELINE)
# The tiers' entry points: defined in their generated kernels_<tier>.cpp (compiled with the tier's flags, so
# they copy the table with VEX moves) and called only once the CPU is known to support the tier.
AVX_ENTRY_POINTS = {f"simdscan::detail::{name}_kernel_table()" for name in ABOVE_BASELINE}
PREFIXES = {"lock", "rep", "repz", "repe", "repnz", "repne", "notrack", "bnd", "data16", "addr32",
            "cs", "ds", "ss", "es", "fs", "gs"}

# Beyond SSE2 (the baseline tier is named "sse2"): SSE3, SSSE3, SSE4.1, SSE4.2, POPCNT, LZCNT, BMI1/2, MOVBE.
# (tzcnt is left out: GCC emits `rep bsf`, which objdump shows as tzcnt and which runs as bsf on older CPUs.)
BEYOND_SSE2 = set(
    """
    addsubpd addsubps haddpd haddps hsubpd hsubps lddqu movddup movshdup movsldup fisttp fisttps fisttpl fisttpll
    pabsb pabsw pabsd palignr phaddw phaddd phaddsw phsubw phsubd phsubsw pmaddubsw pmulhrsw pshufb
    psignb psignw psignd
    blendpd blendps blendvpd blendvps dppd dpps extractps insertps movntdqa mpsadbw packusdw pblendvb pblendw
    pcmpeqq pextrb pextrd pextrq phminposuw pinsrb pinsrd pinsrq pmaxsb pmaxsd pmaxud pmaxuw pminsb pminsd
    pminud pminuw pmovsxbw pmovsxbd pmovsxbq pmovsxwd pmovsxwq pmovsxdq pmovzxbw pmovzxbd pmovzxbq pmovzxwd
    pmovzxwq pmovzxdq pmuldq pmulld ptest roundpd roundps roundsd roundss
    pcmpgtq pcmpestri pcmpestrm pcmpistri pcmpistrm crc32 crc32b crc32w crc32l crc32q
    popcnt lzcnt andn bextr blsi blsmsk blsr bzhi pdep pext rorx sarx shlx shrx movbe
    """.split()
)

HEADER = re.compile(r"^([0-9a-f]+) <(.+)>:\s*$")
INSN = re.compile(r"^\s*[0-9a-f]+:\t(.*)$")
WIDE_REG = re.compile(r"%[yz]mm\d+")
MASK_REG = re.compile(r"%k[0-7]\b")


def _mnemonic(text):
    tokens = text.split()
    while tokens and tokens[0] in PREFIXES:
        tokens = tokens[1:]
    return tokens[0] if tokens else "", " ".join(tokens[1:])


def _is_avx(text):
    mnemonic, operands = _mnemonic(text)
    return mnemonic.startswith("v") or bool(WIDE_REG.search(operands)) or bool(MASK_REG.search(operands))


@pytest.fixture(scope="module")
def functions():
    objdump = shutil.which("objdump")
    if objdump is None:
        pytest.skip("objdump is not installed (Debian: apt-get install binutils)")
    proc = subprocess.run(
        [objdump, "-d", "--no-show-raw-insn", "-C", core.__file__],
        capture_output=True,
        text=True,
        check=True,
    )
    funcs = defaultdict(list)
    current = None
    for line in proc.stdout.splitlines():
        m = HEADER.match(line)
        if m:
            current = m.group(2)
            funcs[current]  # a function may be empty (never in practice)
            continue
        m = INSN.match(line)
        if m and current is not None:
            funcs[current].append(m.group(1).strip())
    assert funcs, f"no functions parsed from the disassembly of {core.__file__}"
    return dict(funcs)


def _allowed_avx(name):
    return any(t in name for t in AVX_TIERS) or name.removesuffix("@plt") in AVX_ENTRY_POINTS


def _baseline_offenders(functions, offends):
    """{name: the instructions for which offends(insn) holds}, over the functions outside the AVX tiers."""
    found = {}
    for name, insns in functions.items():
        if _allowed_avx(name):
            continue
        bad = [i for i in insns if offends(i)]
        if bad:
            found[name] = bad
    return found


def _report(found, limit=40):
    lines = [f"  {name}\n      e.g. {insns[0]!r} ({len(insns)} such instructions)"
             for name, insns in sorted(found.items())[:limit]]
    if len(found) > limit:
        lines.append(f"  ... and {len(found) - limit} more functions")
    return "\n".join(lines)


def test_parser_sees_every_tier(functions):
    baseline = [n for n in functions if "tier_baseline::" in n and not n.endswith("@plt")]
    assert len(baseline) >= 10, (
        f"only {len(baseline)} tier_baseline:: functions in the disassembly: the test would pass vacuously"
    )
    # the parser reads operands: the baseline kernels use SSE registers ...
    assert any("%xmm" in i for n in baseline for i in functions[n]), "no %xmm in the baseline tier"
    # ... and the AVX tiers do contain what the check looks for
    for tier in AVX_TIERS:
        insns = [i for n, body in functions.items() if tier in n for i in body]
        assert insns, f"no {tier} functions found"
        assert any(_is_avx(i) for i in insns)
    for tier, reg in (("tier_avx2::", "%ymm"), ("tier_avx512::", "%zmm")):
        assert tier in AVX_TIERS, f"{tier} is not among the compiled tiers {AVX_TIERS}"
        assert any(reg in i for n, body in functions.items() if tier in n for i in body), (
            f"the {tier} functions use no {reg} register"
        )
    assert any(MASK_REG.search(i) for n, body in functions.items() if "tier_avx512::" in n for i in body), (
        "the avx512 tier uses no mask register: the %k check is not exercised"
    )
    for entry in AVX_ENTRY_POINTS:
        assert entry in functions, f"{entry} not found (update AVX_ENTRY_POINTS)"


def test_no_avx_outside_the_avx_tiers(functions):
    violations = _baseline_offenders(functions, _is_avx)
    assert not violations, (
        f"{len(violations)} functions outside {'/'.join(AVX_TIERS)} contain AVX/AVX-512 "
        f"instructions (ymm/zmm/k registers or VEX/EVEX mnemonics); on a CPU without AVX they "
        f"raise SIGILL:\n{_report(violations)}"
    )


def test_baseline_code_is_sse2_only(functions):
    """Nothing outside the AVX tiers needs more than x86-64's SSE2 (the baseline tier is "sse2")."""
    violations = _baseline_offenders(functions, lambda i: _mnemonic(i)[0] in BEYOND_SSE2)
    assert not violations, (
        f"{len(violations)} functions outside the AVX tiers use instructions beyond SSE2 "
        f"(SSE3/SSSE3/SSE4/POPCNT/BMI):\n{_report(violations)}"
    )


def test_avx_tiers_are_only_reached_through_their_entry_points(functions):
    """No baseline function calls into an AVX tier directly (only the tables, built after the CPU check, do)."""
    callers = _baseline_offenders(
        functions, lambda i: _mnemonic(i)[0].startswith(("call", "jmp")) and any(t in i for t in AVX_TIERS)
    )
    assert not callers, f"baseline functions call AVX-tier code directly:\n{_report(callers)}"
