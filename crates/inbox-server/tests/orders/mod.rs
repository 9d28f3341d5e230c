//! Every order of a few steps, for the suites that settle a park's questions each way round
//! (the store conformance suite, and the webhook suite over HTTP): generated, so that no
//! order can be left out of a hand-written list.

/// Every ordering of `steps` — `N!` of them, each step once in each.
pub fn every_order<T: Copy, const N: usize>(steps: [T; N]) -> Vec<[T; N]> {
    let mut orders = Vec::new();
    let mut order = steps;
    permute(&mut order, 0, &mut orders);
    orders
}

/// Puts each of the steps from `from` on at `from` in turn, and orders the rest after it.
fn permute<T: Copy, const N: usize>(order: &mut [T; N], from: usize, out: &mut Vec<[T; N]>) {
    if from == N {
        out.push(*order);
        return;
    }
    for i in from..N {
        order.swap(from, i);
        permute(order, from + 1, out);
        order.swap(from, i);
    }
}
