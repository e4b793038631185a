# The 'Extending PyTorch' page's examples (LinearFunction with setup_context, MulConstant,
# MyCube returning an intermediate, differentiated twice; a Module using a Function), anomaly
# mode (state, check_nan, the NaN error), no_grad/enable_grad decorators, autograd.backward.
import torch
from torch.autograd import Function
import torch.nn as nn
torch.manual_seed(0)

class LinearFunction(Function):
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output
    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)
    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias

linear = LinearFunction.apply
inp = (torch.randn(20, 20, dtype=torch.double, requires_grad=True),
       torch.randn(30, 20, dtype=torch.double, requires_grad=True))
print(torch.autograd.gradcheck(linear, inp + (None,), eps=1e-6, atol=1e-4))
print(torch.autograd.gradcheck(
    linear, inp + (torch.randn(30, dtype=torch.double, requires_grad=True),)))

class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant
    @staticmethod
    def setup_context(ctx, inputs, output):
        _, constant = inputs
        ctx.constant = constant
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None
x = torch.randn(3, requires_grad=True)
y = MulConstant.apply(x, 5.5)
y.sum().backward()
print(x.grad, y.grad_fn)

class MyCube(Function):
    @staticmethod
    def forward(x):
        result = x ** 3
        dx = 3 * x ** 2
        return result, dx
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)
    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        result = grad_output * dx + grad_dx * 6 * x
        return result
def my_cube(x):
    result, dx = MyCube.apply(x)
    return result
x = torch.randn(3, dtype=torch.double, requires_grad=True)
print(torch.autograd.gradcheck(my_cube, (x,)), torch.autograd.gradgradcheck(my_cube, (x,)))
g, = torch.autograd.grad(my_cube(x).sum(), x, create_graph=True)
print(g, torch.autograd.grad(g.sum(), x))

class Linear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features
        self.weight = nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(output_features))
        else:
            self.register_parameter('bias', None)
        self.weight.data.uniform_(-0.1, 0.1)
        if self.bias is not None:
            self.bias.data.uniform_(-0.1, 0.1)
    def forward(self, input):
        return LinearFunction.apply(input, self.weight, self.bias)
    def extra_repr(self):
        return 'input_features={}, output_features={}, bias={}'.format(
            self.input_features, self.output_features, self.bias is not None)
lin = Linear(4, 3)
print(lin)
out = lin(torch.randn(2, 4))
print(out)
out.sum().backward()
print(lin.weight.grad, lin.bias.grad)

# detect anomaly
with torch.autograd.set_detect_anomaly(True):
    a = torch.tensor([1.0, 0.0], requires_grad=True)
    b = a.sqrt()
    print(b)
print(torch.is_anomaly_enabled())
@torch.no_grad()
def f(x):
    return x * 2
print(f(torch.ones(2, requires_grad=True)).requires_grad)
@torch.enable_grad()
def g2(x):
    return x * 2
with torch.no_grad():
    print(g2(torch.ones(2, requires_grad=True)).requires_grad)
z = torch.ones(2, requires_grad=True)
torch.autograd.backward([(z * 2).sum(), (z * 3).sum()], [torch.tensor(1.0), torch.tensor(2.0)])
print(z.grad)
z.grad.data.zero_(); print(z.grad)
d = (z * 2).detach_(); print(d.requires_grad, d.is_leaf)
q = z * 3
q2 = q.exp()
print(q2.grad_fn, q2.grad_fn.next_functions, q2.grad_fn.next_functions[0][0].next_functions,
      q2.grad_fn.name())
print(q2.grad_fn.metadata, type(q2.grad_fn).__name__,
      isinstance(q2.grad_fn, torch.autograd.graph.Node))
print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
with torch.autograd.set_detect_anomaly(True, check_nan=False):
    print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
import warnings
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        print(torch.is_anomaly_enabled(), [str(i.message) for i in w])
        a = torch.tensor([1.0, 0.0], requires_grad=True)
        try:
            (a.sqrt() * 0).sum().backward()
        except RuntimeError as e:
            print(type(e).__name__, e)
        try:
            (a.log() * a).sum().backward()
            print(a.grad)
        except RuntimeError as e:
            print(type(e).__name__, e)
print(torch.is_anomaly_enabled())
a = torch.tensor([1.0, 0.0], requires_grad=True)
(a.sqrt() * 0).sum().backward()
print(a.grad)
