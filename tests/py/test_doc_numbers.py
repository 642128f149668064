"""test_doc_numbers.py: every number the README and docs/ quote from a file of the project matches that file.

Checked against share/artifacts/: the bundled models' parameter counts, test loss and perplexity (mean and sample
standard deviation over the seeds, as rounded in the tables), selected steps, the test split's target count, the
corpus figures of the audit (vocabulary size, unknown share, median story length), the per-run runtimes, and the
download sizes of the checkpoints the demo quotes. A quoted figure that is missing from the docs is a failure too,
so a rewrite cannot silently drop the table these checks read.
"""
import glob
import json
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, 'share', 'artifacts')
KINDS = {'mlp': 'mlp', 'attention (one head)': 'attention', 'multihead (four heads)': 'multihead'}


def read(rel):
    with open(os.path.join(ROOT, rel), encoding='utf-8') as f:
        return f.read()


def docs():
    """{relative path: text} for the README and every page of docs/."""
    paths = ['README.md'] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, 'docs', '*.md')))
    return {p: read(p) for p in paths}


@pytest.fixture(scope='module')
def comparison():
    with open(os.path.join(ARTIFACTS, 'comparison.json'), encoding='utf-8') as f:
        return json.load(f)


def number(text):
    return float(text.replace(',', ''))


def table_rows(text, header_start):
    """The rows (lists of cells) of every table in text whose header row starts with header_start."""
    rows, lines = [], text.split('\n')
    for i, line in enumerate(lines):
        if line.startswith(header_start) and i + 1 < len(lines) and lines[i + 1].startswith('|---'):
            header = [c.strip() for c in line.strip('|').split('|')]
            for row in lines[i + 2:]:
                if not row.startswith('|'):
                    break
                rows.append(dict(zip(header, (c.strip() for c in row.strip('|').split('|')))))
    return rows


def bundled_rows():
    """(path, row) of every table of the bundled models (header '| model | parameters |')."""
    found = [(p, r) for p, t in docs().items() for r in table_rows(t, '| model | parameters |')]
    assert found, 'no table of the bundled models ("| model | parameters | ...") in the README or docs/'
    return found


def mean_std(cell):
    m = re.fullmatch(r'([\d.]+) ± ([\d.]+)', cell)
    assert m, f'"{cell}" is not "MEAN ± STD"'
    return m.group(1), m.group(2)


def test_bundled_tables_match_comparison_json(comparison):
    runs, agg = comparison['runs'], comparison['aggregate']
    rows = bundled_rows()
    assert any(p == 'README.md' for p, _ in rows), 'the README has no table of the bundled models'
    for path, row in rows:
        kind = KINDS.get(row['model'])
        assert kind, f'{path}: unknown model row {row["model"]!r}'
        params = {r['parameters'] for r in runs[kind]}
        assert params == {int(number(row['parameters']))}, f'{path}: {kind} parameters {row["parameters"]} != {params}'
        for column, key in (('test perplexity', 'test_perplexity'), ('test loss', 'test_loss')):
            if column not in row:
                continue
            mean, std = mean_std(row[column])
            places = len(mean.split('.')[1])
            want = (round(agg[kind][key]['mean'], places), round(agg[kind][key]['sample_std'], places))
            assert (float(mean), float(std)) == want, f'{path}: {kind} {column} {row[column]} != {want}'
        if 'selected steps' in row:
            want = ', '.join(str(r['selected_step']) for r in runs[kind])
            assert row['selected steps'] == want, f'{path}: {kind} selected steps {row["selected steps"]} != {want}'


def test_corpus_figures_match_the_audit(comparison):
    audit, text = comparison['audit'], read('docs/data.md')
    test = audit['splits']['test']
    m = re.search(r'test split of the default dgx corpus, ([\d,]+) targets', text)
    assert m, 'docs/data.md does not give the test split\'s target count'
    assert int(number(m.group(1))) == test['targets']
    m = re.search(r'the vocabulary fills its ([\d,]+) cap', text)
    assert m and int(number(m.group(1))) == audit['vocab_size'] == audit['max_vocab']
    m = re.search(r'([\d.]+)% of the test tokens are unknown', text)
    assert m, 'docs/data.md does not give the unknown share'
    assert float(m.group(1)) == round(100 * test['unknown_rate'], 2), f'{m.group(1)}% != {100 * test["unknown_rate"]:.2f}%'
    m = re.search(r'the splits hold ([\d,]+) / ([\d,]+) / ([\d,]+) tokens', text)
    assert m, 'docs/data.md does not give the splits\' token counts'
    splits = audit['splits']
    assert [int(number(x)) for x in m.groups()] == [splits[s]['tokens'] for s in ('train', 'validation', 'test')]
    m = re.search(r'the median text of the training split has ([\d,.]+) tokens', text)
    assert m and float(number(m.group(1))) == splits['train']['length_median'], 'the median text length'


def test_runtimes_match_comparison_json(comparison):
    text = read('docs/data.md')
    for kind, word in (('mlp', 'mlp'), ('attention', 'attention'), ('multihead', 'multihead')):
        m = re.search(r'(\d+)[–-](\d+) s for ' + word + r'\b', text)
        assert m, f'docs/data.md does not give the per-run time of {kind}'
        seconds = [r['runtime_seconds'] for r in comparison['runs'][kind]]
        want = (round(min(seconds)), round(max(seconds)))
        assert (int(m.group(1)), int(m.group(2))) == want, f'{kind}: {m.group(0)} != {want}'


def test_model_ranges_match_comparison_json(comparison):
    agg = comparison['aggregate']
    means = sorted(round(agg[k]['test_perplexity']['mean'], 1) for k in ('mlp', 'attention', 'multihead'))
    m = re.search(r'score test\s+perplexities of ([\d.]+)[–-]([\d.]+)', read('docs/data.md'))
    assert m, 'docs/data.md does not give the range of the test perplexities'
    assert (float(m.group(1)), float(m.group(2))) == (means[0], means[-1])


def test_demo_download_sizes_match_the_checkpoints():
    size = {k: os.path.getsize(os.path.join(ARTIFACTS, f'{k}_seed11.npz')) / 1e6 for k in ('mlp', 'attention', 'multihead')}
    text = read('README.md')
    m = re.search(r'\(([\d.]+) MB mlp, ([\d.]+) MB each attention model\)', text)
    assert m, 'the README does not give the demo\'s download sizes'
    assert float(m.group(1)) == round(size['mlp'], 1)
    assert float(m.group(2)) == round(size['attention'], 1) == round(size['multihead'], 1)
    m = re.search(r'files come to ([\d.]+) MB: it starts with ([\d.]+) MB', text)
    assert m, 'the README does not give the demo\'s total size'
    assert float(m.group(1)) == round(float(m.group(2)) + sum(size.values()), 1)
