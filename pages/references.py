"""The works the posts cite, in one place: a template cites one with ``cite("key")``.

Each work has a key (the author's surname and the year, as a template writes it), its
authors, year, title, where it appeared and a link. The build numbers a page's citations in
the order the page first cites them and ends the page with the works it cited, and only
those (sitebuild/references.py); a key that is not here fails the build.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Work:
    """One cited work. ``authors`` in the order the work lists them, each as "First Last"."""

    key: str
    authors: tuple[str, ...]
    year: str
    title: str
    venue: str
    url: str

    @property
    def short(self) -> str:
        """How the prose names it: 'Raschka, 2024', 'Vaswani et al., 2017'."""
        surnames = [name.split()[-1] for name in self.authors]
        if len(surnames) == 1:
            who = surnames[0]
        elif len(surnames) == 2:
            who = f"{surnames[0]} and {surnames[1]}"
        else:
            who = f"{surnames[0]} et al."
        return f"{who}, {self.year}"

    @property
    def author_list(self) -> str:
        """The authors for the reference list: 'A, B and C'."""
        *rest, last = self.authors
        return f"{', '.join(rest)} and {last}" if rest else last


WORKS: dict[str, Work] = {
    w.key: w
    for w in (
        Work(
            key="raschka2024",
            authors=("Sebastian Raschka",),
            year="2024",
            title="Build a Large Language Model (From Scratch)",
            venue="Manning Publications",
            url="https://www.manning.com/books/build-a-large-language-model-from-scratch",
        ),
        Work(
            key="bahdanau2014",
            authors=("Dzmitry Bahdanau", "Kyunghyun Cho", "Yoshua Bengio"),
            year="2014",
            title="Neural Machine Translation by Jointly Learning to Align and Translate",
            venue="arXiv:1409.0473 (ICLR 2015)",
            url="https://arxiv.org/abs/1409.0473",
        ),
        Work(
            key="vaswani2017",
            authors=(
                "Ashish Vaswani",
                "Noam Shazeer",
                "Niki Parmar",
                "Jakob Uszkoreit",
                "Llion Jones",
                "Aidan N. Gomez",
                "Łukasz Kaiser",
                "Illia Polosukhin",
            ),
            year="2017",
            title="Attention Is All You Need",
            venue="arXiv:1706.03762 (NeurIPS 2017)",
            url="https://arxiv.org/abs/1706.03762",
        ),
        Work(
            key="srivastava2014",
            authors=(
                "Nitish Srivastava",
                "Geoffrey Hinton",
                "Alex Krizhevsky",
                "Ilya Sutskever",
                "Ruslan Salakhutdinov",
            ),
            year="2014",
            title="Dropout: A Simple Way to Prevent Neural Networks from Overfitting",
            venue="Journal of Machine Learning Research 15",
            url="https://jmlr.org/papers/v15/srivastava14a.html",
        ),
        Work(
            key="thomas2025",
            authors=("Giles Thomas",),
            year="2024–2025",
            title="Writing an LLM from scratch",
            venue="A series of posts on Giles' Blog, working through Raschka's book",
            url="https://gilesthomas.com/llm-from-scratch",
        ),
    )
}
