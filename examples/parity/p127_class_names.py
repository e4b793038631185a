# The classes as PyTorch names them: type(grad_fn), AccumulateGrad, graph.Node, a custom
# Function's node, Function/FunctionCtx, Size, dtype, device (and they still pickle).
import torch
x = torch.ones(2, requires_grad=True)
y = (x * 2).sum()
print(type(y.grad_fn), type(x * 2).__name__, type((x * 2).grad_fn))
print(torch.autograd.graph.Node)
print(type(y.grad_fn.next_functions[0][0]), type(y.grad_fn.next_functions[0][0].next_functions[0][0]))


class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 1
    @staticmethod
    def backward(ctx, g):
        return g


print(type(F.apply(x).grad_fn), F.apply(x).grad_fn)
print(torch.autograd.Function, torch.autograd.function.FunctionCtx, torch.Tensor,
      torch.nn.Parameter, torch.Size, torch.dtype, torch.device)
print(type(torch.float32), type(torch.device("cpu")), type(torch.Size([1])), type(x.shape))
import pickle
print(pickle.loads(pickle.dumps(torch.Size([2, 3]))), pickle.loads(pickle.dumps(torch.device("cpu"))),
      pickle.loads(pickle.dumps(torch.float64)))
