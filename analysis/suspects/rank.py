"""The suspect ranking: how likely each item's recorded gold is wrong, from every model's answers.

The model (``docs/suspects.md``): an item's true answer is either its recorded gold ``g`` or another
choice ``c``. Each model answers independently given the truth, right with a probability that
depends on the model, the item's *context* (task, category, sub-category and the benchmark's own
attributes: the slice) and the true answer's value; wrong answers spread over the other choices.
Those probabilities are the models' accuracies measured on the other items, shrunk level by level
(model -> model and gold value -> model, context and gold value), and moved by how the model does
on the other questions of the same clip or pair than expected (a hard clip lowers them). The score
is the log likelihood ratio of the best alternative ``c`` against ``g``: a strong model's
disagreement in a slice where it is usually right weighs a lot, disagreement in a slice where every
model fails on purpose, or by a yes-biased model on a no-probe, weighs little.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.benchmarks import get
from analysis.benchmarks.slicing import ANSWER, describe, slice_columns
from analysis.errors import InvalidLabel
from analysis.failures.slices import MAX_VALUES
from analysis.query.flips import verdict_rows

PRIOR = 0.05
"""Prior share of wrong gold (published audits find a few percent): ``suggested`` is set where the
posterior that the gold is wrong passes one half under it."""
MODEL_STRENGTH = 4.0
"""Pseudo-counts pulling a model's accuracy on one gold value toward its overall accuracy."""
CONTEXT_STRENGTH = 4.0
"""Pseudo-counts pulling a model's accuracy in one context toward its accuracy on that gold value."""
CLUSTER_STRENGTH = 2.0
"""Pseudo-counts damping the shift from the other questions of a clip or pair."""
FLOOR = 0.02
"""Probabilities are kept in [FLOOR, 1 - FLOOR]: no single model decides an item."""
CHOICE_FORMS = ("choice", "options", "multi-options")
"""Gold kinds (:attr:`~analysis.benchmarks.base.GoldKind.form`) whose value is a choice."""
MIN_MODELS = 3
"""The ranking needs this many models' answers."""

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Suspect:
    """One ranked item."""

    item_id: str
    task: str
    rank: int
    score: float
    """Log likelihood ratio (natural log) of the suggested value against the recorded gold."""
    gold: str
    suggested: str | None
    against: int
    agree: int
    reasons: tuple[str, ...]
    alternative: str = ""
    """The alternative the score weighs (native form), set even where it is not suggested."""
    posterior: float = 0.0
    """Probability that the gold is wrong under :data:`PRIOR` (models taken as independent)."""

    def as_dict(self, reviewed: str | None = None, with_reviewed: bool = False) -> dict[str, object]:
        """The JSON line of ``halluscope suspects --json`` (``docs/cli.md``)."""
        out: dict[str, object] = {
            "item_id": self.item_id,
            "rank": self.rank,
            "score": self.score,
            "gold": self.gold,
            "suggested": self.suggested,
            "against": self.against,
            "for": self.agree,
            "reasons": list(self.reasons),
        }
        if with_reviewed:
            out["reviewed"] = reviewed
        return out


def choice_rows(benchmark: str, table: pd.DataFrame) -> pd.DataFrame:
    """The rows that can be judged: scored, with a verdict, whose gold is a choice."""
    rows = verdict_rows(table)
    if not len(rows):
        return rows
    bench = get(benchmark)
    pairs = rows[["task", "gold"]].astype("string").fillna("").drop_duplicates()
    choice = {
        (t, g)
        for t, g in zip(pairs["task"], pairs["gold"], strict=True)
        if g != "" and bench.gold_kind(str(t), str(g)).form in CHOICE_FORMS
    }
    keys = zip(
        rows["task"].astype("string").fillna(""), rows["gold"].astype("string").fillna(""), strict=True
    )
    return rows[np.fromiter((k in choice for k in keys), dtype=bool, count=len(rows))]


def _readable(benchmark: str, rows: pd.DataFrame) -> npt.NDArray[np.bool_]:
    """Per row, whether its reading is a value the item's gold could take (its kind accepts it).

    An official reading that is no such value (one official scorer keeps a failed answer's normalised
    text, ``YES THE PERSON IS WALKING``) is an unreadable answer: it is left out, as an empty
    reading is, and never weighed as an alternative gold nor suggested.
    """
    bench = get(benchmark)
    keys = rows[["task", "gold", "parsed"]].astype("string").fillna("")
    known: dict[tuple[str, str, str], bool] = {}
    for task, gold, parsed in keys.drop_duplicates().itertuples(index=False, name=None):
        try:
            bench.gold_kind(str(task), str(gold)).normalize(str(parsed), str(gold))
            known[task, gold, parsed] = True
        except InvalidLabel:
            known[task, gold, parsed] = parsed == ""  # empty stays for the frame to leave out
    triples = zip(keys["task"], keys["gold"], keys["parsed"], strict=True)
    return np.fromiter((known[t] for t in triples), dtype=bool, count=len(rows))


def rank_suspects(benchmark: str, table: pd.DataFrame, *, prior: float = PRIOR) -> list[Suspect]:
    """Every judged item of ``table`` (one benchmark's rows, any models), most suspect first.

    ``gold`` is the gold being judged (the official one, or the corrected view's). Items no model
    answered are left out; ranks are 1-based, ties broken by item id.
    """
    rows = choice_rows(benchmark, table)
    rows = rows[rows["item_id"].notna().to_numpy(dtype=bool)]
    rows = rows[_readable(benchmark, rows)]
    if not len(rows):
        return []
    f = _Frame.build(benchmark, rows)
    llr, candidate, p_right = _best_alternative(f)
    shift, notes = _balance_prior(f, prior)
    return _suspects(f, llr + shift, candidate, p_right, prior, notes)


def disagreement(benchmark: str, table: pd.DataFrame) -> dict[str, float]:
    """Item id -> share of the models that answered it whose answer is judged wrong (the naive ranking)."""
    rows = choice_rows(benchmark, table)
    answered = rows[rows["parsed"].astype("string").fillna("").str.strip().ne("").to_numpy(dtype=bool)]
    wrong = ~answered["correct"].astype(bool)
    return {str(k): float(v) for k, v in wrong.groupby(answered["item_id"].astype(str)).mean().items()}


# -- the frame of evidence ----------------------------------------------------------------------


@dataclass
class _Frame:
    """One row per model's parsed answer to a judged item, with what the model needs."""

    item: npt.NDArray[np.intp]
    """Item code per row (into ``items``)."""
    items: npt.NDArray[np.object_]
    model: npt.NDArray[np.intp]
    models: npt.NDArray[np.object_]
    context: npt.NDArray[np.intp]
    contexts: list[tuple[tuple[str, str], ...]]
    cluster: npt.NDArray[np.intp]
    gold: npt.NDArray[np.object_]
    """Normalised gold per row."""
    answer: npt.NDArray[np.object_]
    """Normalised parsed answer per row ("" where none was read)."""
    agree: npt.NDArray[np.bool_]
    """The official verdict: the answer agrees with the recorded gold."""
    choices: npt.NDArray[np.float64]
    """How many answers the item's task offers (at least 2)."""
    native: dict[str, str]
    """Normalised value -> its spelling in the files (the gold's where one exists)."""
    task: npt.NDArray[np.object_]
    item_gold: dict[int, str]
    """Item code -> the recorded gold as the files spell it."""

    @classmethod
    def build(cls, benchmark: str, rows: pd.DataFrame) -> _Frame:
        clusters, columns = slice_columns(benchmark, rows)
        parsed = rows["parsed"].astype("string").fillna("").str.strip()
        keep = (parsed != "").to_numpy(dtype=bool)
        rows, clusters = rows[keep], clusters[keep]
        columns = {k: v[keep] for k, v in columns.items()}
        gold_text = rows["gold"].astype("string").fillna("").str.strip()
        gold = gold_text.str.casefold().to_numpy(dtype=object)
        answer = parsed[keep].str.casefold().to_numpy(dtype=object)
        names = [
            c
            for c, v in columns.items()
            if c not in ("gold", ANSWER) and 1 < len(set(v.tolist())) <= MAX_VALUES
        ]
        if names:
            key = pd.MultiIndex.from_arrays([columns[c] for c in names])
            context, distinct = pd.factorize(key)
            contexts = [
                tuple((c, str(v)) for c, v in zip(names, d, strict=True) if v != "") for d in distinct
            ]
        else:
            context, contexts = np.zeros(len(rows), dtype=np.intp), [()]
        item, items = pd.factorize(rows["item_id"].astype(str))
        model, models = pd.factorize(rows["model"].astype(str))
        cluster, _ = pd.factorize(
            pd.Series(clusters, dtype=object).where(
                pd.Series(clusters) != "", rows["item_id"].astype(str).to_numpy()
            )
        )
        task = rows["task"].astype("string").fillna("").to_numpy(dtype=object)
        values = pd.DataFrame({"task": task, "v": gold}).drop_duplicates()
        per_task = values.groupby("task")["v"].nunique()
        answers = pd.DataFrame({"task": task, "v": answer}).drop_duplicates().groupby("task")["v"].nunique()
        k = np.maximum(2, np.maximum(per_task.reindex(task).to_numpy(), answers.reindex(task).to_numpy()))
        native: dict[str, str] = {}
        for raw, norm in zip(parsed[keep].to_numpy(dtype=object), answer, strict=True):
            native.setdefault(norm, str(raw))
        for raw, norm in zip(gold_text.to_numpy(dtype=object), gold, strict=True):
            native[norm] = str(raw)
        first = pd.Series(np.arange(len(item))).groupby(item).first().to_numpy()
        return cls(
            item=np.asarray(item, dtype=np.intp),
            items=np.asarray(items, dtype=object),
            model=np.asarray(model, dtype=np.intp),
            models=np.asarray(models, dtype=object),
            context=np.asarray(context, dtype=np.intp),
            contexts=contexts,
            cluster=np.asarray(cluster, dtype=np.intp),
            gold=gold,
            answer=answer,
            agree=rows["correct"].to_numpy(dtype=bool),
            choices=k.astype(np.float64),
            native=native,
            task=task,
            item_gold={
                int(i): str(g)
                for i, g in zip(item[first], gold_text.to_numpy(dtype=object)[first], strict=True)
            },
        )


def _rates(
    model: npt.NDArray[np.intp],
    context: npt.NDArray[np.intp],
    value: npt.NDArray[np.object_],
    right: npt.NDArray[np.bool_],
) -> pd.DataFrame:
    """The rows the accuracies are counted from."""
    return pd.DataFrame({"m": model, "k": context, "v": value, "r": right.astype(np.float64), "n": 1.0})


def _smoothed(r_m: Floats, n_m: Floats, r_mv: Floats, n_mv: Floats, r_mkv: Floats, n_mkv: Floats) -> Floats:
    """The accuracy of a model in a context on a gold value, shrunk toward the coarser levels."""
    p_m = (r_m + 1.0) / (n_m + 2.0)
    p_mv = (r_mv + MODEL_STRENGTH * p_m) / (n_mv + MODEL_STRENGTH)
    return np.asarray((r_mkv + CONTEXT_STRENGTH * p_mv) / (n_mkv + CONTEXT_STRENGTH), dtype=np.float64)


def _sums(frame: pd.DataFrame, keys: list[str], at: pd.DataFrame) -> tuple[Floats, Floats]:
    """(right, total) of ``frame`` grouped by ``keys``, looked up for each row of ``at``."""
    grouped = frame.groupby(keys, sort=False)[["r", "n"]].sum()
    found = grouped.reindex(pd.MultiIndex.from_frame(at[keys]) if len(keys) > 1 else at[keys[0]])
    return found["r"].fillna(0.0).to_numpy(dtype=np.float64), found["n"].fillna(0.0).to_numpy(
        dtype=np.float64
    )


def _accuracy(frame: pd.DataFrame, at: pd.DataFrame, own: Floats | None) -> Floats:
    """Each row of ``at``'s model accuracy in its context on its value.

    ``own`` (each row's own verdict, where ``at`` is ``frame``) is left out of every count.
    """
    r_m, n_m = _sums(frame, ["m"], at)
    r_mv, n_mv = _sums(frame, ["m", "v"], at)
    r_mkv, n_mkv = _sums(frame, ["m", "k", "v"], at)
    if own is not None:
        r_m, n_m, r_mv, n_mv = r_m - own, n_m - 1, r_mv - own, n_mv - 1
        r_mkv, n_mkv = r_mkv - own, n_mkv - 1
    return _smoothed(r_m, n_m, r_mv, n_mv, r_mkv, n_mkv)


def _best_alternative(f: _Frame) -> tuple[Floats, npt.NDArray[np.object_], Floats]:
    """(log likelihood ratio, alternative value) per item code, and each row's accuracy under the gold."""
    right = f.agree
    frame = _rates(f.model, f.context, f.gold, right)
    p_gold = _accuracy(frame, frame, right.astype(np.float64))
    # how the model does on the other questions of the clip or pair, against what was expected
    residual = right - p_gold
    group = pd.DataFrame({"m": f.model, "c": f.cluster, "e": residual, "n": 1.0})
    sums = group.groupby(["m", "c"], sort=False)[["e", "n"]].transform("sum")
    shift = (sums["e"].to_numpy() - residual) / (sums["n"].to_numpy() - 1.0 + CLUSTER_STRENGTH)
    p_g = np.clip(p_gold + shift, FLOOR, 1.0 - FLOOR)

    n_items = len(f.items)
    llr = np.full(n_items, -np.inf)
    best = np.full(n_items, "", dtype=object)
    answered = pd.DataFrame({"i": f.item, "v": f.answer})
    answered = answered[answered["v"] != ""].drop_duplicates()
    first = pd.Series(np.arange(len(f.item))).groupby(f.item).first().to_numpy()
    golds = pd.DataFrame({"i": f.item[first], "v": f.gold[first]})
    # the hypotheses of each item: its gold and every answer some model gave
    hyp = pd.concat([golds, answered], ignore_index=True).drop_duplicates()
    if len(hyp) == len(golds):
        return np.zeros(n_items), best, p_g
    rows = pd.DataFrame({"i": f.item, "row": np.arange(len(f.item))})
    per_row = hyp.merge(rows, on="i")
    at = per_row["row"].to_numpy()
    value = per_row["v"].to_numpy(dtype=object)
    probe = pd.DataFrame({"m": f.model[at], "k": f.context[at], "v": value})
    p_other = np.clip(_accuracy(frame, probe, None) + shift[at], FLOOR, 1.0 - FLOOR)
    per_row["p"] = np.where(value == f.gold[at], p_g[at], p_other)

    # under each hypothesis, the tempting option: every other answer given, or one nobody gave
    tempting = hyp.merge(answered.rename(columns={"v": "d"}), on="i")
    tempting = tempting[tempting["v"] != tempting["d"]].assign(w=0.0)
    k = pd.Series(f.choices).groupby(f.item).first().to_numpy()
    given = tempting.groupby(["i", "v"]).size().rename("n").reset_index()
    unseen = hyp.merge(given, on=["i", "v"], how="left")
    unseen["n"] = k[unseen["i"].to_numpy()] - 1.0 - unseen["n"].fillna(0.0).to_numpy()
    unseen = unseen[unseen["n"] > 0.5]
    unseen = unseen.assign(d=_NOBODY, w=np.log(unseen["n"].to_numpy(dtype=np.float64))).drop(columns="n")
    tempting = pd.concat([tempting, unseen], ignore_index=True)

    joined = tempting.merge(per_row, on=["i", "v"])
    at = joined["row"].to_numpy()
    p = joined["p"].to_numpy(dtype=np.float64)
    hypothesis = joined["v"].to_numpy(dtype=object)
    k1 = f.choices[at] - 1.0
    pull = _concentration(f)[at]
    says = f.answer[at]
    log_p = np.where(
        says == hypothesis,
        np.log(p),
        np.log(1.0 - p)
        + np.log(
            np.where(says == joined["d"].to_numpy(dtype=object), pull + (1.0 - pull) / k1, (1.0 - pull) / k1)
        ),
    )
    joined["t"] = log_p
    per_option = joined.groupby(["i", "v", "d"], sort=False).agg(t=("t", "sum"), w=("w", "first"))
    per_option["t"] += per_option["w"]
    top = per_option.groupby(level=[0, 1], sort=False)["t"].transform("max")
    spread = (
        pd.Series(np.exp((per_option["t"] - top).to_numpy()), index=per_option.index)
        .groupby(level=[0, 1], sort=False)
        .sum()
    )
    likelihood = (np.log(spread) + top.groupby(level=[0, 1], sort=False).first()).rename("t").reset_index()
    gold_of = f.gold[first]
    is_gold = likelihood["v"].to_numpy(dtype=object) == gold_of[likelihood["i"].to_numpy()]
    under_gold = likelihood[is_gold].set_index("i")["t"]
    others = likelihood[~is_gold].sort_values(["i", "t", "v"], ascending=[True, False, True])
    others = others.drop_duplicates(subset=["i"])
    ids = others["i"].to_numpy()
    llr[ids] = others["t"].to_numpy() - under_gold.reindex(ids).to_numpy()
    best[ids] = others["v"].to_numpy(dtype=object)
    llr[~np.isfinite(llr)] = _no_alternative(f)[~np.isfinite(llr)]
    return llr, best, p_g


_NOBODY = "\x00"
"""The tempting option of an item where it is one no model gave (never a normalised answer)."""


def _concentration(f: _Frame) -> Floats:
    """Per row, the share of its context's wrong answers that go to the item's tempting option.

    Wrong answers to one question bunch on one option (the distractor the question was written
    around) rather than spreading evenly. With a share ``pi`` of wrong answers going to that option
    and the rest spread over all ``K - 1`` wrong options, two wrong answers to the same item agree
    with probability ``a^2 + (K - 2) b^2`` (``a = pi + b``, ``b = (1 - pi) / (K - 1)``). That rate
    is measured per context, on the wrong answers against the recorded gold, and solved for ``pi``.
    With two choices there is one wrong option and ``pi`` does not matter.
    """
    wrong = ~f.agree & (f.answer != "")
    counts = pd.DataFrame({"k": f.context[wrong], "i": f.item[wrong], "x": f.answer[wrong]})
    n = counts.groupby(["k", "i", "x"]).size().astype(np.float64)
    per_item = n.groupby(level=[0, 1]).sum()
    same = (n * (n - 1.0)).groupby(level=0).sum()
    pairs = (per_item * (per_item - 1.0)).groupby(level=0).sum()
    k = pd.Series(f.choices).groupby(f.context).max()
    share = np.zeros(len(f.contexts))
    rate = (same / pairs.where(pairs > 0)).dropna()
    for context, agreeing in zip(rate.index.to_numpy(dtype=np.intp), rate.to_numpy(), strict=True):
        share[context] = _pull(float(agreeing), float(k.get(context, 2.0)))
    return np.asarray(share[f.context], dtype=np.float64)


def _pull(agreeing: float, k: float) -> float:
    """The ``pi`` whose wrong answers agree at the rate ``agreeing`` among ``k`` choices (bisection)."""
    if k <= 2.0 or agreeing <= 1.0 / (k - 1.0):
        return 0.0
    low, high = 0.0, 1.0
    for _ in range(40):
        pi = (low + high) / 2.0
        b = (1.0 - pi) / (k - 1.0)
        if (pi + b) ** 2 + (k - 2.0) * b * b > agreeing:
            high = pi
        else:
            low = pi
    return (low + high) / 2.0


def _no_alternative(f: _Frame) -> Floats:
    """Items every model agrees with: the evidence their agreement gives another value over the gold.

    Under the gold a model gives it with its accuracy ``p`` on that value; under another value it
    gives the gold only by erring, with ``(1 - p_other) / (K - 1)``, where ``p_other`` is its
    accuracy on the task's other gold values (their mean). A model right on the gold's value far
    more often than it errs toward it makes the item less suspect; a model that gives that value
    whatever the truth (always "yes") says nothing about it.
    """
    frame = _rates(f.model, f.context, f.gold, f.agree)
    p = np.clip(_accuracy(frame, frame, f.agree.astype(np.float64)), FLOOR, 1.0 - FLOOR)
    n = len(f.item)
    rows = pd.DataFrame({"row": np.arange(n), "t": f.task, "g": f.gold})
    values = rows[["t", "g"]].drop_duplicates().rename(columns={"g": "v"})
    other = rows.merge(values, on="t")
    other = other[other["v"] != other["g"]]
    at = other["row"].to_numpy()
    probe = pd.DataFrame({"m": f.model[at], "k": f.context[at], "v": other["v"].to_numpy(dtype=object)})
    p_v = np.clip(_accuracy(frame, probe, None), FLOOR, 1.0 - FLOOR)
    mean = pd.Series(p_v).groupby(at).mean().reindex(range(n)).to_numpy(dtype=np.float64)
    p_other = np.where(np.isnan(mean), p, mean)  # a task with one gold value: the gold's own
    k1 = f.choices - 1.0
    term = np.log((1.0 - p_other) / k1) - np.log(p)
    out = pd.Series(term).groupby(f.item).sum().reindex(range(len(f.items)), fill_value=0.0)
    return np.asarray(out.to_numpy(), dtype=np.float64)


# -- from scores to readable suspects ----------------------------------------------------------


BALANCED_SHARE = 0.8
"""A task's clusters follow a balanced design (as many of each yes/no gold) when this share of its
clusters of two or more items do."""
MIN_CLUSTERS = 10
"""Fewer clusters of two or more items than this say nothing about a design."""


def _balance_prior(f: _Frame, prior: float) -> tuple[Floats, dict[int, str]]:
    """Per item, the log-odds its prior moves by where its cluster breaks a balanced design.

    Benchmarks pair their probes: one yes- and one no-probe per clip, one question asked of two
    clips or two images with opposite answers. Where a task's clusters hold as many of each of its
    two gold values in at least :data:`BALANCED_SHARE` of them (measured on the data, so a file of
    another shape is left alone), a cluster that does not is a clue: some of its over-represented
    answers are wrong. Flipping ``|a - b| / 2`` of them restores the balance, so each
    over-represented item's prior becomes that share of them, instead of :data:`PRIOR`.
    """
    shift = np.zeros(len(f.items))
    notes: dict[int, str] = {}
    first = pd.Series(np.arange(len(f.item))).groupby(f.item).first().to_numpy()
    items = pd.DataFrame({"i": f.item[first], "c": f.cluster[first], "t": f.task[first], "g": f.gold[first]})
    base = math.log(prior / (1.0 - prior))
    for _, part in items.groupby("t", sort=False):
        if part["g"].nunique() != 2:
            continue
        counts = part.groupby(["c", "g"]).size().unstack(fill_value=0)
        multi = counts[counts.sum(axis=1) >= 2]
        if len(multi) < MIN_CLUSTERS:
            continue
        a, b = multi.iloc[:, 0].to_numpy(), multi.iloc[:, 1].to_numpy()
        balanced = a == b
        share = float(balanced.mean())
        if share < BALANCED_SHARE:
            continue
        values = [str(v) for v in multi.columns]
        for cluster, na, nb in zip(multi.index[~balanced], a[~balanced], b[~balanced], strict=True):
            if (na - nb) % 2:
                continue  # an odd excess cannot be balanced by flips alone
            over, n_over = (values[0], na) if na > nb else (values[1], nb)
            p = min(0.5, (abs(na - nb) / 2) / n_over)
            members = part[(part["c"] == cluster) & (part["g"] == over)]["i"].to_numpy()
            for item in members:
                shift[int(item)] = math.log(p / (1.0 - p)) - base
                notes[int(item)] = (
                    f"its clip or pair has {na} {values[0]} and {nb} {values[1]} gold answers, though "
                    f"{share:.0%} of them hold as many of each: some {over} here is likely wrong"
                )
    return shift, notes


def _suspects(
    f: _Frame,
    llr: Floats,
    candidate: npt.NDArray[np.object_],
    p_right: Floats,
    prior: float,
    notes: dict[int, str] | None = None,
) -> list[Suspect]:
    # scores are sums in row order: rounded, so that the order of the rows cannot break a tie
    order = sorted(range(len(f.items)), key=lambda i: (-round(float(llr[i]), 9), str(f.items[i])))
    by_item = _rows_of(f.item)
    cluster_rows = _rows_of(f.cluster)
    prior_log_odds = math.log(prior / (1.0 - prior))
    out = []
    for rank, i in enumerate(order, start=1):
        rows = by_item[i]
        c = str(candidate[i])
        native_c = f.native.get(c, c) if c else ""
        against = int(sum(not f.agree[r] for r in rows))
        agree = len(rows) - against
        log_odds = llr[i] + prior_log_odds
        posterior = 1.0 / (1.0 + math.exp(-log_odds)) if log_odds > -700 else 0.0
        out.append(
            Suspect(
                item_id=str(f.items[i]),
                task=str(f.task[rows[0]]),
                rank=rank,
                score=float(llr[i]),
                gold=f.item_gold[i],
                suggested=native_c if c and posterior > 0.5 else None,
                against=against,
                agree=agree,
                reasons=_reasons(f, rows, c, native_c, p_right, cluster_rows)
                + ((notes[i],) if notes and i in notes else ()),
                alternative=native_c,
                posterior=posterior,
            )
        )
    return out


def _rows_of(codes: npt.NDArray[np.intp]) -> dict[int, list[int]]:
    """Code -> the rows holding it, in row order."""
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    return {int(codes[part[0]]): part.tolist() for part in np.split(order, bounds) if part.size}


def _reasons(
    f: _Frame,
    rows: Sequence[int],
    c: str,
    native_c: str,
    p_right: Floats,
    cluster_rows: Mapping[int, list[int]],
) -> tuple[str, ...]:
    n = len(rows)
    gold = f.item_gold[int(f.item[rows[0]])]
    if not c:
        return (f"all {n} models that answered agree with the gold {gold}",)
    says = [r for r in rows if f.answer[r] == c]
    strong = sorted(rows, key=lambda r: -p_right[r])[: max(1, n // 3)]
    strong_c = sum(1 for r in strong if f.answer[r] == c)
    head = f"{len(says)} of {n} models answer {native_c}"
    if strong_c:
        head += (
            ", including the strongest here"
            if len(strong) == 1
            else (f", including {strong_c} of the {len(strong)} strongest here")
        )
    reasons = [head]
    where = describe(f.contexts[int(f.context[rows[0]])]) or "this task"
    mean = float(np.mean([p_right[r] for r in strong]))
    who = "the strongest model is" if len(strong) == 1 else f"those {len(strong)} models are"
    reasons.append(f"in this slice ({where}, gold {gold}) {who} right {mean:.0%} of the time")
    others = [r for r in cluster_rows[int(f.cluster[rows[0]])] if f.item[r] != f.item[rows[0]]]
    if others:
        items = len({int(f.item[r]) for r in others})
        strong_models = {int(f.model[r]) for r in strong}
        theirs = [r for r in others if int(f.model[r]) in strong_models]
        if theirs:
            hit = float(np.mean(f.agree[theirs]))
            expected = float(np.mean(p_right[theirs]))
            if hit >= expected - 0.1:
                reasons.append(
                    f"they answer the other {items} question(s) on this clip or pair as expected "
                    f"({hit:.0%} right)"
                )
            else:
                reasons.append(
                    f"they also miss other questions on this clip or pair ({hit:.0%} right, "
                    f"{expected:.0%} expected), so it weighs less"
                )
    return tuple(reasons)
