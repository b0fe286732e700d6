package dev.ratelimit.web;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.NettyDataBufferFactory;
import org.springframework.http.server.reactive.AbstractServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The parts of a body written part by part that a cancelled write never subscribed to:
 * through Spring's own {@code ChannelSendOperator} (an {@code AbstractServerHttpResponse}'s write), held
 * before its commit as a commit action awaiting the store holds it, then cancelled as a
 * client going away cancels it.
 */
class UnwrittenPartsTests {

	private final NettyDataBufferFactory buffers = new NettyDataBufferFactory(Unpooled.buffer().alloc());

	@Test
	void aPartTheCancelledWriteDroppedUnsubscribedIsReleased() {
		ByteBuf event = event();
		UnwrittenParts unwritten = new UnwrittenParts();
		ServerHttpResponse response = heldBeforeCommit();
		Disposable write = response
			.writeAndFlushWith(Flux.just(unwritten.track(Flux.just(this.buffers.wrap(event)))))
			.doFinally((signal) -> unwritten.release())
			.subscribe();
		write.dispose();
		assertThat(event.refCnt()).isZero();
	}

	@Test
	void withoutTrackingTheDroppedPartsBufferIsNeverReleased() {
		ByteBuf event = event();
		ServerHttpResponse response = heldBeforeCommit();
		response.writeAndFlushWith(Flux.just(Flux.just(this.buffers.wrap(event)))).subscribe().dispose();
		assertThat(event.refCnt()).as("Spring's ChannelSendOperator drops a cached part unreleased").isOne();
		event.release();
	}

	@Test
	void aPartTheWriteSubscribedToIsWrittenAndNotReleasedAgain() {
		ByteBuf event = event();
		UnwrittenParts unwritten = new UnwrittenParts();
		NettyLikeResponse response = new NettyLikeResponse(this.buffers);
		response.writeAndFlushWith(Flux.just(unwritten.track(Flux.just(this.buffers.wrap(event)))))
			.doFinally((signal) -> unwritten.release())
			.block();
		assertThat(response.written).hasToString("data: 1\n\n");
		assertThat(event.refCnt()).as("released once, by the response that wrote it").isZero();
	}

	@Test
	void aPartSubscribedToAfterItsReleaseFailsRatherThanWritesAReleasedBuffer() {
		UnwrittenParts unwritten = new UnwrittenParts();
		ByteBuf event = event();
		Publisher<DataBuffer> part = unwritten.track(Flux.just(this.buffers.wrap(event)));
		unwritten.release();
		assertThat(event.refCnt()).isZero();
		StepVerifier.create(part).expectError(IllegalStateException.class).verify();
	}

	private ServerHttpResponse heldBeforeCommit() {
		ServerHttpResponse response = new NettyLikeResponse(this.buffers);
		response.beforeCommit(Mono::never);
		return response;
	}

	/**
	 * A response that, as Reactor Netty's, subscribes to its body's parts only when its
	 * write is subscribed to, after the commit: Spring's mock response subscribes at
	 * once.
	 */
	private static final class NettyLikeResponse extends AbstractServerHttpResponse {

		private final StringBuilder written = new StringBuilder();

		NettyLikeResponse(DataBufferFactory buffers) {
			super(buffers);
		}

		@Override
		public <T> T getNativeResponse() {
			throw new UnsupportedOperationException();
		}

		@Override
		protected Mono<Void> writeWithInternal(Publisher<? extends DataBuffer> body) {
			return Flux.from(body).doOnNext(this::write).then();
		}

		@Override
		protected Mono<Void> writeAndFlushWithInternal(Publisher<? extends Publisher<? extends DataBuffer>> body) {
			return Flux.from(body).concatMap(Flux::from).doOnNext(this::write).then();
		}

		private void write(DataBuffer buffer) {
			this.written.append(buffer.toString(StandardCharsets.UTF_8));
			DataBufferUtils.release(buffer);
		}

		@Override
		protected void applyStatusCode() {
		}

		@Override
		protected void applyHeaders() {
		}

		@Override
		protected void applyCookies() {
		}

	}

	private static ByteBuf event() {
		return Unpooled.copiedBuffer("data: 1\n\n", StandardCharsets.UTF_8);
	}

}
