package dev.ratelimit.web;

import java.nio.ByteBuffer;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;

/**
 * A response whose body is read for its cost as it is written: every buffer passes on
 * unchanged, its bytes shown, read-only, to the {@link BodyNumbers} of the exchange's
 * {@link ExchangeSettlement}, which keeps only what its pointers need. The body ends
 * when its write has completed, every buffer read: one cut short (an upstream failing,
 * a client going away) keeps the estimate.
 */
final class CostReadingResponse extends ServerHttpResponseDecorator {

	private final ExchangeSettlement settlement;

	CostReadingResponse(ServerHttpResponse delegate, ExchangeSettlement settlement) {
		super(delegate);
		this.settlement = settlement;
	}

	@Override
	public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
		BodyNumbers numbers = this.settlement.bodyReader();
		if (numbers == null) {
			return super.writeWith(body);
		}
		return super.writeWith(Flux.from(body).doOnNext((buffer) -> read(numbers, buffer)))
			.doFinally((signal) -> ended(numbers, signal));
	}

	/**
	 * Each part of the body, an event stream's events in Spring Cloud Gateway, read as
	 * {@link #writeWith} reads the whole.
	 */
	@Override
	public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
		BodyNumbers numbers = this.settlement.bodyReader();
		UnwrittenParts unwritten = new UnwrittenParts();
		if (numbers == null) {
			return super.writeAndFlushWith(Flux.from(body).map(unwritten::track))
				.doFinally((signal) -> unwritten.release());
		}
		return super.writeAndFlushWith(Flux.from(body)
			.map((part) -> unwritten.track(Flux.from(part).doOnNext((buffer) -> read(numbers, buffer)))))
			.doFinally((signal) -> {
				unwritten.release();
				ended(numbers, signal);
			});
	}

	/**
	 * Under the reader's lock, as a cancel may come on another thread while a buffer is
	 * read, and the reader is not thread-safe.
	 */
	private static void read(BodyNumbers numbers, DataBuffer buffer) {
		synchronized (numbers) {
			try (DataBuffer.ByteBufferIterator views = buffer.readableByteBuffers()) {
				while (views.hasNext()) {
					numbers.accept(views.next());
				}
			}
		}
	}

	/**
	 * A body written to its end tells its cost; one cut short only frees its reader (a
	 * decoder's native memory).
	 */
	private void ended(BodyNumbers numbers, SignalType signal) {
		synchronized (numbers) {
			numbers.finish();
		}
		if (signal == SignalType.ON_COMPLETE) {
			this.settlement.bodyRead(numbers);
		}
	}

}
