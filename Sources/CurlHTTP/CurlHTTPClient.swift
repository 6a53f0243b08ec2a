import CCurl
import Dispatch

/// Settings of the libcurl client.
public struct CurlHTTPConfiguration: Sendable {
    /// How long to wait for a connection to be set up.
    public var connectTimeout: Duration
    /// How long one whole request may take, connection included.
    public var requestTimeout: Duration
    /// How many requests may be in flight at once. Each lane keeps its own connections
    /// alive between requests, so a run opens at most this many connections per host.
    public var lanes: Int
    /// Sent as `User-Agent` on every request.
    public var userAgent: String
    /// The certificate authorities to trust (a PEM file), instead of the system's.
    public var caFile: String?
    /// The proxy every request goes through; "" for none, whatever the environment says.
    /// Errors of requests through a proxy name it.
    public var proxy: String
    /// The largest body read whole into memory (an answer not streamed to a consumer);
    /// a larger one stops the transfer with `TransportError.Kind.tooLarge`.
    public var maxBodyBytes: Int

    /// The default `maxBodyBytes`: 8 MiB, far above any answer the bank's API documents.
    public static let standardMaxBodyBytes = 8 << 20

    public init(
        connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(60), lanes: Int = 4,
        userAgent: String, caFile: String? = nil, proxy: String = "", maxBodyBytes: Int = standardMaxBodyBytes
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.lanes = max(1, lanes)
        self.userAgent = userAgent
        self.caFile = caFile
        self.proxy = proxy
    }

    /// `proxy` without any user name or password in it, for messages.
    public var proxyForMessages: String {
        guard let at = proxy.lastIndex(of: "@") else { return proxy }
        let scheme = proxy.range(of: "://").map { String(proxy[..<$0.upperBound]) } ?? ""
        return scheme + proxy[proxy.index(after: at)...]
    }
}

/// An HTTP client over libcurl's easy interface.
///
/// `curl_easy_perform` blocks its thread, so each request runs on a lane's own serial
/// dispatch queue, never on Swift's cooperative thread pool; the calling task suspends
/// until it is done. A lane's easy handle is reused from request to request, which keeps
/// its connections (and TLS sessions) alive. TLS verification is always on, redirects are
/// never followed (a redirect must not carry the bearer token elsewhere), and only http
/// and https are allowed.
public final class CurlHTTPClient: HTTPTransport {
    private let configuration: CurlHTTPConfiguration
    private let pool: LanePool

    public init(configuration: CurlHTTPConfiguration) throws(TransportError) {
        try CurlGlobal.initialize()
        self.configuration = configuration
        var lanes: [CurlLane] = []
        for index in 0..<configuration.lanes {
            guard let handle = curl_easy_init() else {
                throw TransportError(kind: .other, message: "libcurl could not create an easy handle")
            }
            lanes.append(CurlLane(handle: handle, index: index))
        }
        self.pool = LanePool(lanes: lanes)
    }

    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        try await perform(request, consumer: nil)
    }

    public func send(_ request: HTTPRequest, streamingBodyTo consumer: any ResponseBodyConsumer)
        async throws(TransportError) -> HTTPResponse
    {
        try await perform(request, consumer: consumer)
    }

    private func perform(_ request: HTTPRequest, consumer: (any ResponseBodyConsumer)?) async throws(TransportError)
        -> HTTPResponse
    {
        let lane = await pool.acquire()
        let configuration = self.configuration
        let result: Result<HTTPResponse, TransportError> = await withCheckedContinuation { continuation in
            lane.queue.async {
                continuation.resume(returning: lane.perform(request, configuration: configuration, consumer: consumer))
            }
        }
        await pool.release(lane)
        return try result.get()
    }
}

/// `curl_global_init` must run once, before any other libcurl call.
private enum CurlGlobal {
    private static let code: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

    static func initialize() throws(TransportError) {
        guard code == CURLE_OK else {
            throw TransportError(kind: .other, message: "libcurl failed to initialise: \(describe(code))")
        }
    }
}

/// Hands lanes to requests, one request per lane at a time, in arrival order.
private actor LanePool {
    private var idle: [CurlLane]
    private var waiting: [CheckedContinuation<CurlLane, Never>] = []

    init(lanes: [CurlLane]) { self.idle = lanes }

    func acquire() async -> CurlLane {
        if let lane = idle.popLast() { return lane }
        return await withCheckedContinuation { waiting.append($0) }
    }

    func release(_ lane: CurlLane) {
        if waiting.isEmpty {
            idle.append(lane)
        } else {
            waiting.removeFirst().resume(returning: lane)
        }
    }
}

/// One easy handle and the serial queue it runs on.
///
/// `@unchecked Sendable` is sound because the handle is only touched on `queue`, and the
/// pool gives a lane to one request at a time.
private final class CurlLane: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    let queue: DispatchQueue

    init(handle: UnsafeMutableRawPointer, index: Int) {
        self.handle = handle
        self.queue = DispatchQueue(label: "roundup.curl.lane.\(index)")
    }

    deinit { curl_easy_cleanup(handle) }

    func perform(
        _ request: HTTPRequest, configuration: CurlHTTPConfiguration, consumer: (any ResponseBodyConsumer)?
    ) -> Result<HTTPResponse, TransportError> {
        // Reset clears the options of the previous request but keeps live connections.
        curl_easy_reset(handle)
        let collector = ResponseCollector(handle: handle, consumer: consumer, limit: configuration.maxBodyBytes)
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

        let body = request.body ?? []
        let code: CURLcode = body.withUnsafeBufferPointer { bodyBytes in
            errorBuffer.withUnsafeMutableBufferPointer { errorBytes in
                var setup = CURLE_OK
                func set(_ result: CURLcode) { if setup == CURLE_OK { setup = result } }
                set(roundup_curl_setopt_string(handle, CURLOPT_URL, request.url))
                set(roundup_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
                set(roundup_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
                set(roundup_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
                set(roundup_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1))
                set(roundup_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2))
                if let caFile = configuration.caFile { set(roundup_curl_setopt_string(handle, CURLOPT_CAINFO, caFile)) }
                // Set always, so that libcurl never picks a proxy from the environment on its own.
                set(roundup_curl_setopt_string(handle, CURLOPT_PROXY, configuration.proxy))
                set(
                    roundup_curl_setopt_long(
                        handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(configuration.connectTimeout)))
                set(roundup_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, milliseconds(configuration.requestTimeout)))
                set(roundup_curl_setopt_string(handle, CURLOPT_USERAGENT, configuration.userAgent))
                set(roundup_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBytes.baseAddress))
                // libcurl silently sends a request again when a reused connection dies before
                // any answer, although the server may have acted on it. A fresh connection
                // keeps a request that must not be repeated from being repeated.
                set(roundup_curl_setopt_long(handle, CURLOPT_FRESH_CONNECT, request.repeatable ? 0 : 1))

                for (name, value) in request.headers {
                    headerList = curl_slist_append(headerList, "\(name): \(value)")
                }
                // Without this, curl waits for "100 Continue" before sending larger bodies.
                headerList = curl_slist_append(headerList, "Expect:")
                set(roundup_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList))

                switch request.method {
                case .get:
                    set(roundup_curl_setopt_long(handle, CURLOPT_HTTPGET, 1))
                case .put, .post:
                    set(roundup_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method.rawValue))
                    set(roundup_curl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bodyBytes.count)))
                    set(
                        roundup_curl_setopt_pointer(
                            handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bodyBytes.baseAddress)))
                }

                let context = Unmanaged.passUnretained(collector).toOpaque()
                set(
                    roundup_curl_setopt_callback(
                        handle, CURLOPT_WRITEFUNCTION,
                        { data, size, count, context in
                            guard let data, let context else { return 0 }
                            let collector = Unmanaged<ResponseCollector>.fromOpaque(context).takeUnretainedValue()
                            let length = size * count
                            return collector.body(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
                        }))
                set(roundup_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context))
                set(
                    roundup_curl_setopt_callback(
                        handle, CURLOPT_HEADERFUNCTION,
                        { data, size, count, context in
                            guard let data, let context else { return 0 }
                            let collector = Unmanaged<ResponseCollector>.fromOpaque(context).takeUnretainedValue()
                            let length = size * count
                            collector.headerLine(UnsafeRawBufferPointer(start: data, count: length))
                            return length
                        }))
                set(roundup_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context))
                guard setup == CURLE_OK else { return setup }
                return withExtendedLifetime(collector) { curl_easy_perform(handle) }
            }
        }

        // A consumer that stopped the transfer has what it needs to say why; the answer
        // itself arrived.
        if code == CURLE_WRITE_ERROR && collector.tooLarge {
            return .failure(
                TransportError(
                    kind: .tooLarge,
                    message: "the answer is larger than the \(configuration.maxBodyBytes >> 20) MiB read whole"))
        }
        guard code == CURLE_OK || (code == CURLE_WRITE_ERROR && collector.consumerStopped) else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let through = configuration.proxy.isEmpty ? "" : " (through the proxy \(configuration.proxyForMessages))"
            return .failure(
                TransportError(kind: kind(of: code), message: (detail.isEmpty ? describe(code) : detail) + through))
        }
        var status = 0
        _ = roundup_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return .success(HTTPResponse(status: status, headers: collector.headers, body: collector.body))
    }
}

/// Gathers the response as libcurl hands it over; used only on its lane's queue.
private final class ResponseCollector {
    let handle: UnsafeMutableRawPointer
    let consumer: (any ResponseBodyConsumer)?
    var body: [UInt8] = []
    var headers: [String: String] = [:]
    /// Whether the body goes to the consumer: decided at its first piece, once the status
    /// is known.
    private var streaming: Bool?
    private(set) var consumerStopped = false
    /// The most of a body kept whole.
    let limit: Int
    private(set) var tooLarge = false

    init(handle: UnsafeMutableRawPointer, consumer: (any ResponseBodyConsumer)?, limit: Int) {
        self.handle = handle
        self.consumer = consumer
        self.limit = limit
    }

    /// Takes a piece of the body; false stops the transfer.
    func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if streaming == nil {
            var status = 0
            _ = roundup_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            streaming = consumer != nil && (200..<300).contains(status)
        }
        if streaming == true, let consumer {
            if consumer.consume(bytes) { return true }
            consumerStopped = true
            return false
        }
        guard body.count + bytes.count <= limit else {
            tooLarge = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    func headerLine(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
        if line.hasPrefix("HTTP/") {
            // A new status line: headers of an interim (1xx) response are dropped.
            headers = [:]
        } else if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].lowercased()
            headers[name] = String(line[line.index(after: colon)...]).trimmingWhitespace()
        }
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}

private func milliseconds(_ duration: Duration) -> Int {
    let (seconds, attoseconds) = duration.components
    return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
}

private func describe(_ code: CURLcode) -> String {
    String(cString: curl_easy_strerror(code))
}

private func kind(of code: CURLcode) -> TransportError.Kind {
    switch code {
    case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
        .couldNotConnect
    case CURLE_OPERATION_TIMEDOUT:
        .timedOut
    case CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE:
        .connectionLost
    case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE,
        CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER:
        .tls
    case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
        .badRequest
    default:
        .other
    }
}
