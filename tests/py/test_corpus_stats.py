"""test_corpus_stats.py: the default corpus has the statistics of TinyStories, measured by its audit and by the bundled models.

The embedded story generator must not make stories far more predictable than real ones (the course's
TinyStories run: test perplexity 28.8-51.6). On the dgx profile the vocabulary reaches its 4,000 cap
with min_freq 2, 1-3% of the test tokens are unknown, and the splits hold as many tokens as the course's
(964,338 / 119,634 / 119,801, within 15%), in texts of which half are snippets of one to three sentences
(so the median text is far shorter than TinyStories' 176 tokens, by design: see docs/data.md). The
bundled artifacts (share/artifacts/) must come from this very corpus: comparison.json carries the audit
of the corpus it was trained on, compared here with the audit wordlab computes now. Its three models
score test perplexities between 15 and 80, ordered multihead < attention < mlp with mean +- sample
standard deviation intervals that do not overlap; and the bundled multihead model gives the course's
prompt "a little dog found a red hat" no token above 15 nats (the worst-token limit set for natural sentences)
and a perplexity under 500.
"""
import json
import math
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, 'share', 'artifacts')
PROMPT = 'a little dog found a red hat'


def wordlab():
    exe = os.environ.get('WORDLAB') or os.path.join(os.environ.get('WL_BUILD_DIR', os.path.join(ROOT, 'build')), 'wordlab')
    assert os.access(exe, os.X_OK), f'{exe} is not built'
    return exe


def values(commands):
    """The JSON value of every command of a script, in order."""
    done = subprocess.run([wordlab(), '--json', '-c', commands], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    out = []
    for line in done.stdout.splitlines():
        v = json.loads(line)
        if isinstance(v, dict):
            out.append(v)
    return out


@pytest.fixture(scope='module')
def audit():
    (corpus,) = [v for v in values('corpus profile=dgx') if v.get('type') == 'corpus']
    return corpus['audit']


@pytest.fixture(scope='module')
def comparison():
    with open(os.path.join(ARTIFACTS, 'comparison.json')) as f:
        return json.load(f)


def test_dgx_audit_has_tinystories_figures(audit):
    s = audit['splits']
    print('dgx audit:', json.dumps({k: s[k] for k in ('train', 'test')}), 'vocab', audit['vocab_size'])
    assert audit['max_vocab'] == 4000 and audit['min_freq'] == 2
    assert audit['vocab_size'] == 4000, 'the vocabulary must reach its cap with min_freq 2'
    assert 0.01 <= s['test']['unknown_rate'] <= 0.03, s['test']['unknown_rate']
    for split, course in (('train', 964338), ('validation', 119634), ('test', 119801)):
        assert 0.85 * course <= s[split]['tokens'] <= 1.15 * course, (split, s[split]['tokens'], course)
    assert audit['overlap'] == 0


def test_artifacts_come_from_this_corpus(audit, comparison):
    """The bundled comparison was made on the corpus the generator makes now (same audit, figure for figure)."""
    assert comparison['audit']['splits'] == audit['splits']
    assert comparison['audit']['vocab_size'] == audit['vocab_size']
    with open(os.path.join(ARTIFACTS, 'vocab.json')) as f:
        assert len(json.load(f)['itos']) == audit['vocab_size']


def test_bundled_perplexities_are_tinystories_like(comparison):
    agg = comparison['aggregate']
    ppl = {k: (agg[k]['test_perplexity']['mean'], agg[k]['test_perplexity']['sample_std']) for k in ('multihead', 'attention', 'mlp')}
    print('test perplexity (mean, sd):', ppl)
    for kind, (mean, sd) in ppl.items():
        assert agg[kind]['test_perplexity']['n'] == 3, kind
        assert 15 <= mean <= 80, (kind, mean)
        assert sd > 0, kind
        runs = [r['test_perplexity'] for r in comparison['runs'][kind]]
        assert len(runs) == 3 and abs(sum(runs) / 3 - mean) < 1e-9 * mean, (kind, runs)
    (mh, mh_sd), (at, at_sd), (ml, ml_sd) = ppl['multihead'], ppl['attention'], ppl['mlp']
    assert mh + mh_sd < at - at_sd, 'multihead and attention intervals overlap'
    assert at + at_sd < ml - ml_sd, 'attention and mlp intervals overlap'


def test_course_prompt_under_bundled_multihead():
    script = ('vocab = vocab [artifact vocab.json]\n'
              'm = model load [artifact multihead_seed11.npz] vocab=$vocab\n'
              f'losses $m "{PROMPT}"\n')
    (scored,) = [v for v in values(script) if v.get('type') == 'losses']
    tokens, losses = scored['tokens'], scored['losses']
    print('per-token losses:', list(zip(tokens, [round(x, 3) for x in losses])))
    assert tokens[:7] == PROMPT.split() and len(losses) == 8   # the seven words, then <EOS>
    assert all(math.isfinite(x) and x <= 15 for x in losses), losses
    ppl = math.exp(sum(losses) / len(losses))
    assert ppl < 500, ppl
