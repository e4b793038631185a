"""``torch.optim``: SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, NAdam, schedulers."""
from . import lr_scheduler  # noqa: F401
from .algorithms import SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, NAdam, RMSprop
from .optimizer import Optimizer

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
           "NAdam", "lr_scheduler"]
