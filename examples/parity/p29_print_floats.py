# How floats print: precision 4, integral values as "1.", scientific notation.
import torch

for values in [[1.0], [2.5], [1., 2., 3.], [0.1, 0.25], [1e-5], [1e-5, 1.0],
               [123456789.0], [1e8, 1.0], [1e9], [1.5e10, 2.0], [0.0], [0., 0.], [-0.0],
               [1000.5, 0.5], [1001.0, 1.0], [0.0001, 0.5], [0.00012, 1.0], [-1.5, 2.25],
               [float("nan"), 1.], [float("inf"), -float("inf"), 1.5], [float("nan")],
               [1e-10, 1e10], [3.14159265, -2.71828], [100., 200.5], [12345.678]]:
    t = torch.tensor(values)
    print(t, t[0], sep="  |  ")
print(torch.tensor(2.5), torch.tensor(1.), torch.tensor(-0.5), torch.tensor(1e-6))
print(torch.tensor([[1.5, -20.25], [300.125, 4.]]))
print(torch.tensor([[1e-6, 1.], [2., 3.]]))
