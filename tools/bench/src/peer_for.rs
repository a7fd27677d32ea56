//! The peer table: for each filter of cudalens (by its registry name), NPP's nearest
//! equivalent with the filter's parameters. The app's filters know nothing of NPP.

use crate::npp::{peers, Npp, NppError, Peer};
use cudalens::filters::gaussian_weights;
use cudalens::filters::Params;

/// NPP's nearest equivalent of the filter `name` with `params` on a `width × height`
/// source; `None` where NPP has nothing close.
pub fn peer_for(
    npp: &Npp,
    name: &str,
    params: &Params,
    width: u32,
    height: u32,
) -> Option<Result<Peer, NppError>> {
    Some(match name {
        "box" => Ok(peers::box_filter(params.int(0))),
        "gaussian" => peers::gaussian(npp, &gaussian_weights(params.get(0), params.int(1))),
        "unsharp" => peers::unsharp(npp, params.get(0), params.int(2), params.get(1)),
        "median" => peers::median(npp, params.int(0), width, height),
        "sobel" => Ok(peers::sobel()),
        "transpose" => Ok(peers::transpose()),
        "equalize" => peers::equalize(npp, width, height),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    /// Filters with a peer.
    const WITH_PEER: [&str; 7] = [
        "box",
        "gaussian",
        "unsharp",
        "median",
        "sobel",
        "transpose",
        "equalize",
    ];

    #[test]
    fn every_name_of_the_table_is_a_filter() {
        for name in WITH_PEER {
            assert!(
                cudalens::filters::FILTERS.iter().any(|d| d.name == name),
                "{name} is not in the filter registry"
            );
        }
    }
}
