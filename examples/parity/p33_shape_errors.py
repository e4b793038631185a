# Errors from shapes and conversions, with PyTorch's messages.
import torch


def attempt(f):
    try:
        print(f())
    except (RuntimeError, IndexError, ValueError, TypeError) as e:
        print(type(e).__name__, e)


a = torch.ones(2, 3)
attempt(lambda: torch.ones(2) + torch.ones(3))
attempt(lambda: a + torch.ones(2))
attempt(lambda: a @ a)
attempt(lambda: a.view(4))
attempt(lambda: a.reshape(-1, 4))
attempt(lambda: a.item())
attempt(lambda: bool(a))
attempt(lambda: a[2])
attempt(lambda: a[0, 5])
attempt(lambda: a.sum(dim=2))
attempt(lambda: a.transpose(0, 2))
attempt(lambda: a.unsqueeze(3))
attempt(lambda: torch.ones(3).dot(torch.ones(4)))
attempt(lambda: a.mm(torch.ones(3)))
attempt(lambda: len(torch.tensor(1.)))
attempt(lambda: a.expand(3, 3))
attempt(lambda: a.t().view(-1))
