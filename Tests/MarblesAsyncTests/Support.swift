import Foundation

typealias NSLockLike = NSLock
