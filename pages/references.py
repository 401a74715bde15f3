"""The works the posts cite, in one place: a template cites one with ``cite("key")``.

Each work has a key (the author's surname and the year, as a template writes it), its
authors, year, title, where it appeared and a link. The build numbers a page's citations in
the order the page first cites them and ends the page with the works it cited, and only
those (sitebuild/references.py); a key that is not here fails the build.
"""

from dataclasses import dataclass

from attention.decode import H100_DATASHEET
from attention.gpt import BONUS_SOURCE
from attention.rope_scaling import LLAMA31_8B


@dataclass(frozen=True)
class Work:
    """One cited work. ``authors`` in the order the work lists them, each as "First Last", or
    one organisation named as it names itself (``organisation``)."""

    key: str
    authors: tuple[str, ...]
    year: str
    title: str
    venue: str
    url: str
    organisation: bool = False

    @property
    def short(self) -> str:
        """How the prose names it: 'Raschka, 2024', 'Vaswani et al., 2017'."""
        if self.organisation:
            return f"{self.authors[0]}, {self.year}"
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
        """The authors for the reference list: 'A, B and C' (or 'A, B, C et al.', for a work
        whose list ends with "et al.")."""
        if self.authors[-1] == "et al.":
            return ", ".join(self.authors[:-1]) + " et al."
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
            key="raschka2025kvcache",
            authors=("Sebastian Raschka",),
            year="2025",
            title="Bonus material: KV cache",
            venue="LLMs-from-scratch, the book's code repository, ch04/03_kv-cache",
            url=BONUS_SOURCE,
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
            key="shazeer2019",
            authors=("Noam Shazeer",),
            year="2019",
            title="Fast Transformer Decoding: One Write-Head is All You Need",
            venue="arXiv:1911.02150",
            url="https://arxiv.org/abs/1911.02150",
        ),
        Work(
            key="ainslie2023",
            authors=(
                "Joshua Ainslie",
                "James Lee-Thorp",
                "Michiel de Jong",
                "Yury Zemlyanskiy",
                "Federico Lebrón",
                "Sumit Sanghai",
            ),
            year="2023",
            title="GQA: Training Generalized Multi-Query Transformer Models from Multi-Head "
            "Checkpoints",
            venue="arXiv:2305.13245 (EMNLP 2023)",
            url="https://arxiv.org/abs/2305.13245",
        ),
        Work(
            key="beltagy2020",
            authors=("Iz Beltagy", "Matthew E. Peters", "Arman Cohan"),
            year="2020",
            title="Longformer: The Long-Document Transformer",
            venue="arXiv:2004.05150",
            url="https://arxiv.org/abs/2004.05150",
        ),
        Work(
            key="jiang2023",
            authors=(
                "Albert Q. Jiang",
                "Alexandre Sablayrolles",
                "Arthur Mensch",
                "Chris Bamford",
                "Devendra Singh Chaplot",
                "Diego de las Casas",
                "Florian Bressand",
                "Gianna Lengyel",
                "Guillaume Lample",
                "Lucile Saulnier",
                "Lélio Renard Lavaud",
                "Marie-Anne Lachaux",
                "Pierre Stock",
                "Teven Le Scao",
                "Thibaut Lavril",
                "Thomas Wang",
                "Timothée Lacroix",
                "William El Sayed",
            ),
            year="2023",
            title="Mistral 7B",
            venue="arXiv:2310.06825",
            url="https://arxiv.org/abs/2310.06825",
        ),
        Work(
            key="mistral2023code",
            authors=("Mistral AI",),
            organisation=True,
            year="2023",
            title="mistral-src, the reference implementation of Mistral 7B: one_file_ref.py as "
            "first released",
            venue="GitHub",
            url="https://github.com/mistralai/mistral-src/blob/c18d5b9/one_file_ref.py",
        ),
        Work(
            key="nvidia2023h100",
            authors=("NVIDIA",),
            organisation=True,
            year="2023",
            title="NVIDIA H100 Tensor Core GPU datasheet",
            venue="NVIDIA",
            url=H100_DATASHEET,
        ),
        Work(
            key="gemma2024",
            authors=("Gemma Team, Google DeepMind",),
            organisation=True,
            year="2024",
            title="Gemma 2: Improving Open Language Models at a Practical Size",
            venue="arXiv:2408.00118",
            url="https://arxiv.org/abs/2408.00118",
        ),
        Work(
            key="gemma2025",
            authors=("Gemma Team, Google DeepMind",),
            organisation=True,
            year="2025",
            title="Gemma 3 Technical Report",
            venue="arXiv:2503.19786",
            url="https://arxiv.org/abs/2503.19786",
        ),
        Work(
            key="su2021",
            authors=(
                "Jianlin Su",
                "Yu Lu",
                "Shengfeng Pan",
                "Ahmed Murtadha",
                "Bo Wen",
                "Yunfeng Liu",
            ),
            year="2021",
            title="RoFormer: Enhanced Transformer with Rotary Position Embedding",
            venue="arXiv:2104.09864",
            url="https://arxiv.org/abs/2104.09864",
        ),
        Work(
            key="chen2023",
            authors=("Shouyuan Chen", "Sherman Wong", "Liangjian Chen", "Yuandong Tian"),
            year="2023",
            title="Extending Context Window of Large Language Models via Positional Interpolation",
            venue="arXiv:2306.15595",
            url="https://arxiv.org/abs/2306.15595",
        ),
        Work(
            key="peng2023",
            authors=("Bowen Peng", "Jeffrey Quesnelle", "Honglu Fan", "Enrico Shippole"),
            year="2023",
            title="YaRN: Efficient Context Window Extension of Large Language Models",
            venue="arXiv:2309.00071",
            url="https://arxiv.org/abs/2309.00071",
        ),
        Work(
            key="meta2024llama31",
            authors=("Meta",),
            organisation=True,
            year="2024",
            title="Llama 3.1 8B: config.json, with its rope_scaling",
            venue="Hugging Face",
            url=LLAMA31_8B.source,
        ),
        Work(
            key="meta2024code",
            authors=("Meta",),
            organisation=True,
            year="2024",
            title="llama-models, the reference implementation of Llama 3: apply_scaling in "
            "models/llama3/reference_impl/model.py",
            venue="GitHub",
            url="https://github.com/meta-llama/llama-models/blob/"
            "1bb54864e10c8d007edf2e651f35ec75b3c1cd78/models/llama3/reference_impl/model.py",
        ),
        Work(
            key="milakov2018",
            authors=("Maxim Milakov", "Natalia Gimelshein"),
            year="2018",
            title="Online normalizer calculation for softmax",
            venue="arXiv:1805.02867",
            url="https://arxiv.org/abs/1805.02867",
        ),
        Work(
            key="dao2022",
            authors=("Tri Dao", "Daniel Y. Fu", "Stefano Ermon", "Atri Rudra", "Christopher Ré"),
            year="2022",
            title="FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness",
            venue="arXiv:2205.14135 (NeurIPS 2022)",
            url="https://arxiv.org/abs/2205.14135",
        ),
        Work(
            key="deepseek2024",
            authors=("DeepSeek-AI",),
            year="2024",
            title="DeepSeek-V2: A Strong, Economical, and Efficient Mixture-of-Experts Language "
            "Model",
            venue="arXiv:2405.04434",
            url="https://arxiv.org/abs/2405.04434",
        ),
        Work(
            key="touvron2023",
            authors=("Hugo Touvron", "Louis Martin", "Kevin Stone", "et al."),
            year="2023",
            title="Llama 2: Open Foundation and Fine-Tuned Chat Models",
            venue="arXiv:2307.09288",
            url="https://arxiv.org/abs/2307.09288",
        ),
        Work(
            key="radford2019",
            authors=(
                "Alec Radford",
                "Jeffrey Wu",
                "Rewon Child",
                "David Luan",
                "Dario Amodei",
                "Ilya Sutskever",
            ),
            year="2019",
            title="Language Models are Unsupervised Multitask Learners",
            venue="OpenAI technical report (GPT-2)",
            url="https://cdn.openai.com/better-language-models/language_models_are_unsupervised_multitask_learners.pdf",
        ),
        Work(
            key="brown2020",
            authors=("Tom B. Brown", "Benjamin Mann", "Nick Ryder", "et al."),
            year="2020",
            title="Language Models are Few-Shot Learners",
            venue="NeurIPS 2020",
            url="https://arxiv.org/abs/2005.14165",
        ),
        Work(
            key="openai2025gpt41",
            authors=("OpenAI",),
            year="2025",
            title="GPT-4.1: model page",
            venue="OpenAI API documentation",
            url="https://platform.openai.com/docs/models/gpt-4.1",
            organisation=True,
        ),
        Work(
            key="pytorch2025linear",
            authors=("PyTorch",),
            year="2025",
            title="torch.nn.Linear",
            venue="PyTorch documentation",
            url="https://docs.pytorch.org/docs/stable/generated/torch.nn.Linear.html",
            organisation=True,
        ),
        Work(
            key="pytorch2025softmax",
            authors=("PyTorch",),
            year="2025",
            title="SoftMaxKernel.cpp: the CPU softmax, the row's maximum subtracted first",
            venue="PyTorch's source",
            url="https://github.com/pytorch/pytorch/blob/2a6e51d/aten/src/ATen/native/cpu/"
            "SoftMaxKernel.cpp",
            organisation=True,
        ),
        Work(
            key="pytorch2025transpose",
            authors=("PyTorch",),
            year="2025",
            title="torch.transpose",
            venue="PyTorch documentation",
            url="https://docs.pytorch.org/docs/stable/generated/torch.transpose.html",
            organisation=True,
        ),
        Work(
            key="pytorch2025dropout",
            authors=("PyTorch",),
            year="2025",
            title="torch.nn.Dropout",
            venue="PyTorch documentation",
            url="https://docs.pytorch.org/docs/stable/generated/torch.nn.Dropout.html",
            organisation=True,
        ),
        Work(
            key="openai2019code",
            authors=("OpenAI",),
            year="2019",
            title="gpt-2: src/model.py",
            venue="GPT-2's released code",
            url="https://github.com/openai/gpt-2/blob/master/src/model.py",
            organisation=True,
        ),
        Work(
            key="huggingface2023convert",
            authors=("Hugging Face",),
            year="2023",
            title="convert_llama_weights_to_hf.py",
            venue="transformers, the Llama checkpoint converter",
            url="https://github.com/huggingface/transformers/blob/6ae9169/src/transformers/models/"
            "llama/convert_llama_weights_to_hf.py",
            organisation=True,
        ),
        Work(
            key="deepseek2024code",
            authors=("DeepSeek-AI",),
            year="2024",
            title="DeepSeek-V2: modeling_deepseek.py",
            venue="the model's released code",
            url="https://huggingface.co/deepseek-ai/DeepSeek-V2/blob/main/modeling_deepseek.py",
            organisation=True,
        ),
        Work(
            key="thomas2025",
            authors=("Giles Thomas",),
            year="2024–2025",
            title="Writing an LLM from scratch",
            venue="A series of posts on Giles' Blog, working through Raschka's book",
            url="https://gilesthomas.com/llm-from-scratch",
        ),
        Work(
            key="thomas2025heads",
            authors=("Giles Thomas",),
            year="2025",
            title="Writing an LLM from scratch, part 13: the 'why' of attention, or: attention "
            "heads are dumb",
            venue="Giles' Blog, 8 May 2025, listed in the blog's archive for the month",
            url="https://www.gilesthomas.com/2025/05",
        ),
        Work(
            key="thomas2025scale",
            authors=("Giles Thomas",),
            year="2025",
            title="Writing an LLM from scratch, part 14: the complexity of self-attention at scale",
            venue="Giles' Blog, 14 May 2025",
            url="https://www.gilesthomas.com/2025/05/llm-from-scratch-14-taking-stock-part-2-the-"
            "complexity-of-self-attention-at-scale",
        ),
    )
}
