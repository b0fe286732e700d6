package dev.ratelimit.web;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;

/**
 * The parts of a body written part by part ({@code writeAndFlushWith}, how Spring Cloud
 * Gateway writes an event stream) that the write has not subscribed to, released once
 * the write has ended. A part holds its buffers until it is subscribed to, and a write
 * cancelled early (its client gone) drops a part it had taken without subscribing:
 * Spring's {@code ChannelSendOperator} releases a cached item only when it is a
 * {@code DataBuffer}, and a {@code concatMap}'s queue discards publishers as they are.
 * Each part is claimed once, by the write or by the release, so that no buffer is
 * released while it is written.
 */
final class UnwrittenParts {

	private final Set<Part> unwritten = ConcurrentHashMap.newKeySet();

	/**
	 * The part, tracked until the write subscribes to it.
	 */
	Publisher<DataBuffer> track(Publisher<? extends DataBuffer> part) {
		Part tracked = new Part(part);
		this.unwritten.add(tracked);
		return tracked;
	}

	/**
	 * Release the buffers of every part the write never subscribed to.
	 */
	void release() {
		for (Part part : this.unwritten) {
			part.release();
		}
	}

	private final class Part implements Publisher<DataBuffer> {

		private final Publisher<? extends DataBuffer> buffers;

		private final AtomicBoolean claimed = new AtomicBoolean();

		Part(Publisher<? extends DataBuffer> buffers) {
			this.buffers = buffers;
		}

		@Override
		public void subscribe(Subscriber<? super DataBuffer> subscriber) {
			if (!this.claimed.compareAndSet(false, true)) {
				Operators.error(subscriber, new IllegalStateException("The part was released: its write had ended"));
				return;
			}
			UnwrittenParts.this.unwritten.remove(this);
			this.buffers.subscribe(subscriber);
		}

		void release() {
			if (this.claimed.compareAndSet(false, true)) {
				UnwrittenParts.this.unwritten.remove(this);
				Flux.from(this.buffers).subscribe(DataBufferUtils::release);
			}
		}

	}

}
