#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where FavoriteArchive's programs keep their files by default, as the XDG Base Directory
/// specification says: `$XDG_DATA_HOME/favorite-archive/`, with `~/.local/share` when
/// `XDG_DATA_HOME` is unset, empty or relative (the specification says to ignore a
/// relative one). `archive` keeps `favorites.sqlite3` there, `archive-server` `server.sqlite3`.
public enum DataDirectory {
    /// The path of `fileName` in the data directory that `environment` gives.
    public static func path(of fileName: String, environment: [String: String]) -> String {
        var dataHome: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = xdg
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
            dataHome = home.hasSuffix("/") ? home + ".local/share" : home + "/.local/share"
        }
        while dataHome.count > 1, dataHome.hasSuffix("/") { dataHome.removeLast() }
        return (dataHome == "/" ? "" : dataHome) + "/favorite-archive/" + fileName
    }
}
