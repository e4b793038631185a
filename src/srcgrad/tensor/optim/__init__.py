"""``torch.optim``: SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta and learning-rate schedulers."""
from . import lr_scheduler  # noqa: F401
from .algorithms import SGD, Adadelta, Adagrad, Adam, AdamW, RMSprop
from .optimizer import Optimizer

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "lr_scheduler"]
