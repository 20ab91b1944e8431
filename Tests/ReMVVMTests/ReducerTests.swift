@_spi(ReMVVMServer) import ReMVVM
import Testing

@Suite("Reducers")
struct ReducerTests {
    enum IncrementReducer: Reducer {
        static func reduce(state: Int, with action: Increment) -> Int { state + 1 }
    }

    @Test func reducerHandlesExactlyItsActionType() {
        let reducer = AnyReducer(IncrementReducer.self)
        var state = 0
        #expect(reducer.reduce(&state, with: Increment()))
        #expect(!reducer.reduce(&state, with: Rename(name: "x")))
        #expect(state == 1)
    }

    @Test func reducersForTheSameActionRunInOrder() {
        let double = AnyReducer<Int>.on(Increment.self) { state, _ in state * 2 }
        let addOne = AnyReducer(IncrementReducer.self)
        var state = 3
        _ = AnyReducer(double, addOne).reduce(&state, with: Increment())
        #expect(state == 7)
        state = 3
        _ = AnyReducer(addOne, double).reduce(&state, with: Increment())
        #expect(state == 8)
    }

    @Test func liftedReducerUpdatesOnlyItsSubstate() {
        let counter = AnyReducer(IncrementReducer.self).lifted(\TestState.counter)
        let name = AnyReducer<String>.on(Rename.self) { _, action in action.name }.lifted {
            (state: inout TestState, body) in
            body(&state.name)
        }
        let reducer = AnyReducer(counter, name)
        var state = TestState(counter: 1, name: "a")
        _ = reducer.reduce(&state, with: Increment())
        _ = reducer.reduce(&state, with: Rename(name: "b"))
        #expect(state == TestState(counter: 2, name: "b"))
        #expect(reducer.actions.wireNames == ["test/increment", "test/rename"])
    }
}
